package serving

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// recordGen is fakeGen that keeps the options of its last generation.
type recordGen struct {
	fakeGen
	mu   sync.Mutex
	last GenerateOptions
}

func (r *recordGen) Generate(ctx context.Context, prompt []int, o GenerateOptions, emit func(Token) error) (GenerateResult, error) {
	r.mu.Lock()
	r.last = o
	r.mu.Unlock()
	return r.fakeGen.Generate(ctx, prompt, o, emit)
}

// TestResponseFormatBadIs400NamingTheField: each bad response_format is
// a 400 whose param is the field inside it, and a schema the compiler
// refuses says where in the schema.
func TestResponseFormatBadIs400NamingTheField(t *testing.T) {
	_, hs := newTestServer(t, Options{Generator: &recordGen{}, Model: "m"})
	chat := func(rf string) string {
		return `{"model": "m", "messages": [{"role": "user", "content": "hi"}], "response_format": ` + rf + `}`
	}
	for _, c := range []struct{ rf, param, says string }{
		{`"json"`, "response_format", "must be"},
		{`{}`, "response_format.type", "required"},
		{`{"type": "xml"}`, "response_format.type", "xml"},
		{`{"type": "json_schema"}`, "response_format.json_schema", "required"},
		{`{"type": "json_schema", "json_schema": {"name": "x"}}`, "response_format.json_schema.schema", "required"},
		{`{"type": "json_schema", "json_schema": {"name": "a b", "schema": {}}}`, "response_format.json_schema.name", "letters"},
		{`{"type": "json_schema", "json_schema": {"name": "x", "schema": {}, "extra": 1}}`, "response_format.json_schema", "extra"},
		{`{"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "string", "pattern": "a(?=b)"}}}`, "response_format.json_schema.schema", "#/pattern"},
		{`{"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "integer", "maximum": 9}}}`, "response_format.json_schema.schema", "#/maximum"},
		{`{"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object", "properties": {"n": {"type": "numbr"}}}}}`,
			"response_format.json_schema.schema", "#/properties/n/type"},
		{`{"type": "json_object", "json_schema": {}}`, "response_format.json_schema", "json_object"},
		{`{"type": "text", "extra": 1}`, "response_format", "extra"},
	} {
		code, _, v := post(t, hs.URL+"/v1/chat/completions", chat(c.rf))
		p, msg := errParam(v)
		if code != 400 || p != c.param || !strings.Contains(msg, c.says) {
			t.Errorf("response_format %s: %d param %q (%s), want 400 naming %q and saying %q", c.rf, code, p, msg, c.param, c.says)
		}
	}
}

// TestResponseFormatReachesGenerator: json_schema and json_object give
// the Generator a grammar (the same one for the same schema, however it
// is spaced: compiled once), text and no response_format none; the
// completions endpoint takes it too.
func TestResponseFormatReachesGenerator(t *testing.T) {
	g := &recordGen{}
	_, hs := newTestServer(t, Options{Generator: g, Model: "m"})
	run := func(path, body string) GenerateOptions {
		t.Helper()
		code, _, v := post(t, hs.URL+path, body)
		if code != 200 {
			t.Fatalf("%s: %d %v", body, code, v)
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.last
	}
	chat := func(rf string) string {
		return `{"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 3` + rf + `}`
	}
	schema := `{"type": "json_schema", "json_schema": {"name": "p", "strict": true, "schema": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": false}}}`
	o1 := run("/v1/chat/completions", chat(`, "response_format": `+schema))
	if o1.Grammar == nil || !o1.Grammar.Match([]byte(`{"a": 1}`)) || o1.Grammar.Match([]byte(`{"b": 1}`)) {
		t.Fatalf("json_schema: grammar %v does not follow the schema", o1.Grammar)
	}
	o2 := run("/v1/chat/completions", chat(`, "response_format": `+strings.ReplaceAll(schema, ": ", ":")))
	if o2.Grammar != o1.Grammar {
		t.Errorf("the same schema compiled twice: want the cached grammar")
	}
	if o := run("/v1/chat/completions", chat(`, "response_format": {"type": "json_object"}`)); o.Grammar == nil || !o.Grammar.Match([]byte(`{"x": [1]}`)) || o.Grammar.Match([]byte(`[1]`)) {
		t.Errorf("json_object: want a grammar of any object")
	}
	for _, rf := range []string{``, `, "response_format": {"type": "text"}`, `, "response_format": null`} {
		if o := run("/v1/chat/completions", chat(rf)); o.Grammar != nil {
			t.Errorf("%q: want no grammar", rf)
		}
	}
	if o := run("/v1/completions", `{"model": "m", "prompt": "x", "response_format": {"type": "json_object"}}`); o.Grammar == nil {
		t.Errorf("completions: response_format was not passed on")
	}
}
