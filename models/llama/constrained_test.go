package llama_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/emily-go/emily/models/llama"
	"github.com/emily-go/emily/models/llama/chat"
	"github.com/emily-go/emily/models/sample"
	"github.com/emily-go/emily/models/sample/constrain"
)

// free is a Constraint that bans nothing: Generate through the masked
// step must then give the unmasked tokens.
type free struct{ steps int }

func (f *free) Mask(bias []float32, remaining int) error {
	clear(bias)
	f.steps++
	return nil
}
func (f *free) Advance(int) error { return nil }

func chatPrompt(t *testing.T, m *llama.Model, user string) []int {
	t.Helper()
	text, err := m.Template().Render([]chat.Message{{Role: "user", Content: user}}, true)
	if err != nil {
		t.Fatal(err)
	}
	return m.Tokenizer().Encode(text, false, true)
}

// TestConstraintFreeMaskSameTokens: the mask input changes nothing when
// it bans nothing (greedy and seeded), is asked once a token, and the
// step traces once for all the tokens.
func TestConstraintFreeMaskSameTokens(t *testing.T) {
	m := smolLM2(t, 0)
	prompt := chatPrompt(t, m, "Name three colours.")
	for _, st := range []sample.Settings{{}, {Temperature: 0.8, Seed: 7}} {
		want := greedy(t, m, prompt, llama.Options{MaxTokens: 12, Sampling: st, IgnoreEOG: false})
		f := &free{}
		o := llama.Options{MaxTokens: 12, Sampling: st, Constraint: f}
		got := greedy(t, m, prompt, o)
		if !slices.Equal(got, want) {
			t.Errorf("%+v: with a mask that bans nothing got %v, want %v", st, got, want)
		}
		if f.steps != len(got) {
			t.Errorf("Mask called %d times for %d tokens", f.steps, len(got))
		}
		j, err := m.Step(o)
		if err != nil {
			t.Fatal(err)
		}
		// One program for the prompt's chunk and one for the one-token
		// step: none per token.
		if tr := j.Stats().Traces; tr > 2 {
			t.Errorf("%+v: the masked step traced %d times for %d tokens, want ≤ 2", st, tr, len(got))
		}
	}
}

const personSchema = `{"type":"object","properties":{
  "name":{"type":"string"},
  "age":{"type":"integer","minimum":0},
  "hobbies":{"type":"array","items":{"type":"string"},"maxItems":3}},
  "required":["name","age","hobbies"],"additionalProperties":false}`

func validator(t *testing.T, schema string) *jsonschema.Schema {
	t.Helper()
	var doc any
	if err := json.Unmarshal([]byte(schema), &doc); err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("s.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestConstrainedJSONValidates: SmolLM2's output under a schema parses
// and validates, greedy and sampled, and also when max tokens runs out
// first (the constraint closes the value in time).
func TestConstrainedJSONValidates(t *testing.T) {
	m := smolLM2(t, 0)
	v, err := m.ConstraintVocab()
	if err != nil {
		t.Fatal(err)
	}
	g, err := constrain.Compile([]byte(personSchema), constrain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	val := validator(t, personSchema)
	prompt := chatPrompt(t, m, "Describe Ann, a 31 year old who likes chess, as JSON.")
	for _, c := range []struct {
		name string
		o    llama.Options
	}{
		{"greedy", llama.Options{MaxTokens: 80}},
		{"sampled", llama.Options{MaxTokens: 80, Sampling: sample.Settings{Temperature: 1, Seed: 3}}},
		{"short budget", llama.Options{MaxTokens: 14}},
	} {
		c.o.Constraint = g.Matcher(v)
		res, err := m.Generate(context.Background(), prompt, c.o, func(llama.Token) error { return nil })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var out any
		if err := json.Unmarshal([]byte(res.Text), &out); err != nil {
			t.Fatalf("%s: %q (%s) does not parse: %v", c.name, res.Text, res.Reason, err)
		}
		if err := val.Validate(out); err != nil {
			t.Errorf("%s: %s does not validate: %v", c.name, res.Text, err)
		}
		if len(res.Tokens) > c.o.MaxTokens {
			t.Errorf("%s: %d tokens, over MaxTokens %d", c.name, len(res.Tokens), c.o.MaxTokens)
		}
		t.Logf("%s: %s (%s, %d tokens, %.1f tok/s)", c.name, strings.TrimSpace(res.Text), res.Reason, len(res.Tokens), res.DecodeTokensPerSecond())
	}
}
