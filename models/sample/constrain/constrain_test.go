package constrain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var personSchema = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "maxLength": 12},
    "age": {"type": "integer", "minimum": 0},
    "email": {"type": ["string", "null"]},
    "tags": {"type": "array", "items": {"enum": ["a", "b", "c d"]}, "minItems": 1, "maxItems": 3},
    "score": {"type": "number"},
    "ok": {"type": "boolean"}
  },
  "required": ["name", "age", "tags"],
  "additionalProperties": false
}`

// TestMatch checks the recognizer per schema kind: what it accepts and
// what it refuses.
func TestMatch(t *testing.T) {
	cases := []struct {
		name, schema string
		accept       []string
		reject       []string
	}{
		{"string", `{"type":"string"}`,
			[]string{`""`, `"abc"`, `"é ü 日本"`, `"a\"b"`, `"\\"`, `"\u00e9\n\t"`, `"😀"`},
			[]string{`abc`, ` "x"`, `"x" `, `"abc`, `"a"b"`, `"\x"`, `"\u12"`, "\"a\nb\"", `"a` + "\xff" + `"`, "\"\xc3\"", `"` + "\xed\xa0\x80" + `"`, `1`}},
		{"string bounds", `{"type":"string","minLength":2,"maxLength":3}`,
			[]string{`"ab"`, `"abc"`, `"é日"`, `"\n\""`},
			[]string{`"a"`, `"abcd"`, `""`}},
		{"enum", `{"enum":["red","green",3,null,{"a":[1]}]}`,
			[]string{`"red"`, `"green"`, `3`, `null`, `{"a":[1]}`},
			[]string{`"blue"`, `"re"`, `4`, `{"a":[2]}`, `red`}},
		{"const", `{"const":"x<y"}`, []string{`"x<y"`}, []string{`"x\u003cy"`, `"x"`}},
		{"integer", `{"type":"integer"}`,
			[]string{`0`, `-7`, `123456789012345`},
			[]string{`01`, `1.5`, `1e3`, `-`, `1234567890123456`, `+1`}},
		{"integer min 0", `{"type":"integer","minimum":0}`, []string{`0`, `42`}, []string{`-1`}},
		{"number", `{"type":"number"}`,
			[]string{`0`, `-0.5`, `3.25`, `1e10`, `2.5E-3`, `-12.0e+2`},
			[]string{`.5`, `1.`, `1e`, `--1`, `0x10`, `NaN`}},
		{"boolean null", `{"type":["boolean","null"]}`, []string{`true`, `false`, `null`}, []string{`True`, `nul`, `0`}},
		{"array", `{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":3}`,
			[]string{`[1]`, `[1,2,3]`, `[ 1, 2 ]`, "[\n  1,\n  2\n]", "[1,\r\n\t2]"},
			[]string{`[]`, `[1,2,3,4]`, `[1,]`, `[,1]`, `["a"]`, `[1 2]`, `[1 ,2]`, "[\n\n1]"}},
		{"array empty ok", `{"type":"array","items":{"type":"string"}}`, []string{`[]`, `["a","b"]`}, []string{`[1]`}},
		{"object", personSchema,
			[]string{`{"name":"Al","age":3,"tags":["a"]}`,
				`{"name": "Al", "age": 3, "email": null, "tags": ["a", "c d"], "score": -1.5, "ok": true}`,
				`{"name":"","age":0,"email":"x@y","tags":["b","b","b"]}`},
			[]string{`{"age":3,"name":"Al","tags":["a"]}`, // out of order
				`{"name":"Al","tags":["a"]}`,               // age missing
				`{"name":"Al","age":3,"tags":[]}`,          // minItems
				`{"name":"Al","age":3,"tags":["a"],"x":1}`, // additional
				`{"name":"Al","age":3,"tags":["a"],}`,      // trailing comma
				`{"name":"Alexander the Great","age":3,"tags":["a"]}`}},
		{"object all optional", `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`,
			[]string{`{}`, `{"a":1}`, `{"b":2}`, `{"a":1,"b":2}`},
			[]string{`{,"b":2}`, `{"b":2,"a":1}`, `{"a":1,}`}},
		{"map", `{"type":"object","additionalProperties":{"type":"integer"}}`,
			[]string{`{}`, `{"x":1}`, `{"x":1,"y":-2}`},
			[]string{`{"x":"1"}`, `{x:1}`}},
		{"closed empty", `{"type":"object","additionalProperties":false}`, []string{`{}`, `{ }`}, []string{`{"a":1}`}},
		{"anyOf", `{"anyOf":[{"type":"object","properties":{"k":{"const":"a"},"n":{"type":"integer"}},"required":["k","n"]},
		                     {"type":"object","properties":{"k":{"const":"b"},"s":{"type":"string"}},"required":["k","s"]}]}`,
			[]string{`{"k":"a","n":1}`, `{"k":"b","s":"x"}`},
			[]string{`{"k":"a","s":"x"}`, `{"k":"b","n":1}`}},
		{"ref", `{"$defs":{"P":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"],"additionalProperties":false}},
		          "type":"array","items":{"$ref":"#/$defs/P"}}`,
			[]string{`[{"x":1},{"x":2}]`}, []string{`[{"y":1}]`}},
		{"any", `{}`,
			[]string{`1`, `"a"`, `[1,{"a":[true,null]}]`, `{"a":{"b":{"c":{"d":1}}}}`},
			[]string{`{"a":}`, `[1,]`, `{"a":{"b":{"c":{"d":{"e":{"f":1}}}}}}`}}, // the last is nested past MaxDepth
		{"nullable", `{"type":"string","nullable":true}`, []string{`"a"`, `null`}, []string{`1`}},
		{"pattern anchored", `{"type":"string","pattern":"^[0-9]{3}-[A-Z]{2}$"}`,
			[]string{`"123-AB"`}, []string{`"12-AB"`, `"123-ab"`, `"x123-AB"`, `"123-ABC"`}},
		{"pattern unanchored", `{"type":"string","pattern":"ab+c"}`,
			[]string{`"abc"`, `"xxabbbcyy"`, `"é abc \" "`}, []string{`"ac"`, `"abx"`, `""`}},
		{"pattern classes", `{"type":"string","pattern":"^(\\d+|[é-ü]|\\p{Greek}+|(?i:ok)|\"|\\\\|\n)$"}`,
			[]string{`"42"`, `"é"`, `"ü"`, `"αβγ"`, `"OK"`, `"oK"`, `"\""`, `"\\"`, `"\n"`},
			[]string{`"4a"`, `"e"`, `"ý"`, `"no"`, `""`, "\"\n\""}},
		{"pattern any", `{"type":"string","pattern":"^.{2}$"}`,
			[]string{`"ab"`, `"日本"`, `"\"x"`, `"😀!"`}, []string{`"a"`, `"abc"`, `"\na"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := Compile([]byte(c.schema), Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.accept {
				if !g.Match([]byte(s)) {
					t.Errorf("rejects %q, want accepted", s)
				}
			}
			for _, s := range c.reject {
				if g.Match([]byte(s)) {
					t.Errorf("accepts %q, want rejected", s)
				}
			}
		})
	}
}

func TestWhitespaceBounded(t *testing.T) {
	g, err := Compile([]byte(`{"type":"array"}`), Options{Whitespace: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Match([]byte("[ \n  1]")) || g.Match([]byte("[   1]")) || g.Match([]byte("[\n   1]")) || g.Match([]byte("[\n\n1]")) {
		t.Errorf("Whitespace 2: want at most two blanks either side of at most one line break")
	}
	if !g.Match([]byte(`[{"a": 1}]`)) || g.Match([]byte(`[{"a":  1}]`)) || g.Match([]byte(`[{"a" : 1}]`)) {
		t.Errorf("one space after a colon, none before")
	}
	g, _ = Compile([]byte(`{"type":"array"}`), Options{Whitespace: -1})
	if !g.Match([]byte("[1,2]")) || g.Match([]byte("[1, 2]")) {
		t.Errorf("Whitespace -1: want compact JSON only")
	}
}

func TestJSONObject(t *testing.T) {
	g := JSONObject(Options{})
	for _, s := range []string{`{}`, `{"a": [1, "x", {"b": null}]}`} {
		if !g.Match([]byte(s)) {
			t.Errorf("rejects %q", s)
		}
	}
	for _, s := range []string{`[]`, `"a"`, `{"a"}`} {
		if g.Match([]byte(s)) {
			t.Errorf("accepts %q: json_object is an object", s)
		}
	}
}

func TestSchemaErrors(t *testing.T) {
	cases := []struct{ schema, path, says string }{
		{`{"type":"string","pattern":"^(?=a)"}`, "#/pattern", "lookaround"},
		{`{"type":"string","pattern":"\\bword"}`, "#/pattern", `\b`},
		{`{"type":"string","pattern":"a^b"}`, "#/pattern", "^ is only supported at the start"},
		{`{"type":"string","pattern":"a+","maxLength":3}`, "#/pattern", "minLength/maxLength"},
		{`{"type":"object","properties":{"a b":{"type":"integer","maximum":3}}}`, "#/properties/a b/maximum", "maximum"},
		{`{"type":"integer","minimum":1}`, "#/minimum", "minimum: 0"},
		{`{"type":"strin"}`, "#/type", "unknown type"},
		{`{"$defs":{"N":{"type":"array","items":{"$ref":"#/$defs/N"}}},"$ref":"#/$defs/N"}`, "#/$defs/N/items/$ref", "recursive"},
		{`{"$ref":"#/$defs/missing"}`, "#/$ref", "no such schema"},
		{`{"type":"object","properties":{},"required":["a"],"additionalProperties":false}`, "#/required", "no object fits"},
		{`{"type":"array","minItems":3,"maxItems":2}`, "#", "no array fits"},
		{`{"type":`, "#", "not valid JSON"},
		{`{"enum":[]}`, "#/enum", "non-empty"},
		{`false`, "#", "accepts no value"},
	}
	for _, c := range cases {
		_, err := Compile([]byte(c.schema), Options{})
		var se *SchemaError
		if !errors.As(err, &se) {
			t.Errorf("%s: got %v, want a *SchemaError", c.schema, err)
			continue
		}
		if se.Path != c.path || !strings.Contains(se.Msg, c.says) {
			t.Errorf("%s: got path %q msg %q, want path %q and %q", c.schema, se.Path, se.Msg, c.path, c.says)
		}
	}
}

// testVocab is a byte-level vocabulary (every byte a token, as GPT-2's)
// plus multi-byte tokens that cross JSON's structure, a special token
// without text, and an end-of-generation id.
func testVocab(t testing.TB) (*Vocab, int) {
	var toks [][]byte
	for b := 0; b < 256; b++ {
		toks = append(toks, []byte{byte(b)})
	}
	for _, s := range []string{`{"`, `":`, `": "`, `", "`, `",`, `"}`, `}`, `name`, `"name": "`, `age`, `12`, `3.5`,
		`true`, `tr`, `null`, ` "`, "\n  ", "\n", `["`, `"]`, `"a"`, `c d`, `é`, "\xc3", `, `, `],`, `"tags": [`, `abc`, `ab`, `": [`, `-1`} {
		toks = append(toks, []byte(s))
	}
	toks = append(toks, []byte(`ab`)) // a duplicate: both ids must be allowed together
	toks = append(toks, nil)          // a special token
	eos := len(toks)
	toks = append(toks, []byte("<eos>"))
	v, err := NewVocab(toks, []int{eos})
	if err != nil {
		t.Fatal(err)
	}
	return v, eos
}

var bruteMemo = map[*Grammar]map[string]int{}

// bruteAllowed is the reference: token id is allowed when prefix+token
// can be finished in at most budget more bytes (NFA simulation by sets,
// independent of the lazy DFA and the trie), EOS when prefix is whole.
func bruteAllowed(g *Grammar, v *Vocab, eos int, prefix []byte, budget int) []int {
	a := g.nfa
	closure := func(set map[int32]bool) map[int32]bool {
		work := make([]int32, 0, len(set))
		for q := range set {
			work = append(work, q)
		}
		for len(work) > 0 {
			q := work[len(work)-1]
			work = work[:len(work)-1]
			for _, t := range a.eps[q] {
				if !set[t] {
					set[t] = true
					work = append(work, t)
				}
			}
		}
		return set
	}
	stepSet := func(set map[int32]bool, c byte) map[int32]bool {
		out := map[int32]bool{}
		for q := range set {
			for _, e := range a.edges[q] {
				if e.lo <= c && c <= e.hi {
					out[e.to] = true
				}
			}
		}
		return closure(out)
	}
	run := func(s []byte) map[int32]bool {
		set := closure(map[int32]bool{a.start: true})
		for _, c := range s {
			set = stepSet(set, c)
		}
		return set
	}
	// finishable: an accepting set within n bytes (BFS over the sets,
	// each seen once).
	key := func(set map[int32]bool) string {
		ks := make([]int, 0, len(set))
		for q := range set {
			ks = append(ks, int(q))
		}
		slices.Sort(ks)
		return fmt.Sprint(ks)
	}
	// distance: the fewest bytes to an accepting set (BFS over the sets,
	// each seen once), memoized per set for the grammar.
	distance := func(set map[int32]bool) int {
		k0 := key(set)
		if d, ok := bruteMemo[g][k0]; ok {
			return d
		}
		frontier := []map[int32]bool{set}
		seen := map[string]bool{k0: true}
		d := math.MaxInt
	search:
		for level := 0; len(frontier) > 0; level++ {
			var next []map[int32]bool
			for _, f := range frontier {
				if f[a.accept] {
					d = level
					break search
				}
				for c := 0; c < 256; c++ {
					if t := stepSet(f, byte(c)); len(t) > 0 && !seen[key(t)] {
						seen[key(t)] = true
						next = append(next, t)
					}
				}
			}
			frontier = next
		}
		if bruteMemo[g] == nil {
			bruteMemo[g] = map[string]int{}
		}
		bruteMemo[g][k0] = d
		return d
	}
	finishable := func(set map[int32]bool, n int) bool { return len(set) > 0 && distance(set) <= n }
	var ids []int
	for id, tok := range v.tokens {
		if len(tok) == 0 || id == eos {
			continue
		}
		if finishable(run(append(slices.Clip(prefix), tok...)), budget) {
			ids = append(ids, id)
		}
	}
	if run(prefix)[a.accept] {
		ids = append(ids, eos)
		slices.Sort(ids)
	}
	return ids
}

// TestMaskBruteForce compares Matcher.Allowed with the brute force on
// prefixes of valid outputs, with budgets that bind and that do not.
func TestMaskBruteForce(t *testing.T) {
	v, eos := testVocab(t)
	cases := []struct{ schema, text string }{
		{`{"type":"object","properties":{"name":{"type":"string","maxLength":4},"ok":{"type":"boolean"}},"required":["name"],"additionalProperties":false}`,
			`{"name": "ab", "ok": true}`},
		{`{"type":"array","items":{"enum":["a","c d"]},"maxItems":2}`, `["a", "c d"]`},
		{`{"type":"number"}`, `-12.5e3`},
	}
	for _, c := range cases {
		g, err := Compile([]byte(c.schema), Options{Whitespace: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !g.Match([]byte(c.text)) {
			t.Fatalf("%s does not match its own example %s", c.schema, c.text)
		}
		for cut := 0; cut <= len(c.text); cut++ {
			prefix := []byte(c.text[:cut])
			m := g.Matcher(v)
			for _, b := range prefix {
				if err := m.Advance(int(b)); err != nil {
					t.Fatalf("%s: %q: %v", c.schema, prefix, err)
				}
			}
			for _, remaining := range []int{3, 6, 0} {
				budget := remaining - 1
				if remaining == 0 {
					budget = 40 // larger than any ending here: unbounded
				}
				got, err := m.Allowed(remaining)
				if err != nil {
					t.Fatal(err)
				}
				want := bruteAllowed(g, v, eos, prefix, budget)
				if len(want) == 0 || len(want) == 1 && want[0] == eos && !slices.Contains(got, eos) {
					continue // over budget: Allowed falls back to the closest tokens (TestBudgetFallback)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s after %q, remaining %d:\n got %v\nwant %v", c.schema, prefix, remaining, names(v, got), names(v, want))
				}
			}
		}
	}
}

func names(v *Vocab, ids []int) []string {
	var out []string
	for _, id := range ids {
		out = append(out, string(v.tokens[id]))
	}
	return out
}

// TestRandomWalksValidate draws random allowed tokens under a budget and
// checks every output parses, validates against the schema (santhosh-
// tekuri/jsonschema, an independent validator) and fits the budget.
func TestRandomWalksValidate(t *testing.T) {
	v, eos := testVocab(t)
	schemas := []string{personSchema,
		`{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"v":{"anyOf":[{"type":"string"},{"type":"number"}]}},"required":["id","v"],"additionalProperties":false},"maxItems":4}`,
		`{"type":"object","additionalProperties":{"type":"boolean"}}`,
		`{"type":"object","properties":{"code":{"type":"string","pattern":"^[A-Z]{2}-\\d{3}$"},"note":{"type":"string","pattern":"x+(y|\\\\)"}},"required":["code","note"],"additionalProperties":false}`,
		`{}`}
	rng := rand.New(rand.NewPCG(1, 2))
	for si, src := range schemas {
		g, err := Compile([]byte(src), Options{Whitespace: 2})
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		json.Unmarshal([]byte(src), &doc)
		c := jsonschema.NewCompiler()
		if err := c.AddResource("s.json", doc); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile("s.json")
		if err != nil {
			t.Fatal(err)
		}
		for walk := 0; walk < 60; walk++ {
			budget := 40 + rng.IntN(80)
			m := g.Matcher(v)
			var out []byte
			n := 0
			for ; n < budget && !m.Finished(); n++ {
				ids, err := m.Allowed(budget - n)
				if err != nil {
					t.Fatal(err)
				}
				id := ids[rng.IntN(len(ids))]
				if err := m.Advance(id); err != nil {
					t.Fatal(err)
				}
				if id != eos {
					out = append(out, v.tokens[id]...)
				}
			}
			var val any
			if err := json.Unmarshal(out, &val); err != nil {
				t.Fatalf("schema %d, budget %d: %q does not parse: %v", si, budget, out, err)
			}
			if err := sch.Validate(val); err != nil {
				t.Fatalf("schema %d: %s does not validate: %v", si, out, err)
			}
		}
	}
}

// TestBudgetForcesClosing: with few tokens left, an open string must
// close and the object end, in time.
func TestBudgetForcesClosing(t *testing.T) {
	v, _ := testVocab(t)
	g, err := Compile([]byte(`{"type":"object","properties":{"s":{"type":"string"}},"required":["s"]}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := g.Matcher(v)
	for _, b := range []byte(`{"s":"abc`) {
		m.Advance(int(b))
	}
	ids, _ := m.Allowed(2) // `"` then `}`: nothing else fits
	for _, tok := range names(v, ids) {
		if !strings.Contains(tok, `"`) {
			t.Errorf("two tokens left inside a string: allowed %q, which does not close it", tok)
		}
	}
	if !slices.Contains(names(v, ids), `"}`) {
		t.Errorf("two tokens left inside a string: want the closing %q allowed", `"}`)
	}
	ids, _ = m.Allowed(0)
	if len(ids) < 150 {
		t.Errorf("unbounded: %d tokens allowed inside a string, want most of the vocabulary", len(ids))
	}
}

func TestBudgetFallback(t *testing.T) {
	v, _ := testVocab(t)
	g, _ := Compile([]byte(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`), Options{})
	m := g.Matcher(v)
	// `{"name":""}` needs 11 bytes; with 3 tokens the closest start is
	// the longest token towards it.
	ids, err := m.Allowed(3)
	if err != nil || len(ids) == 0 {
		t.Fatalf("over budget: %v %v, want the closest tokens", ids, err)
	}
	for _, id := range ids {
		if !bytes.HasPrefix([]byte(`{"name": "`), v.tokens[id]) {
			t.Errorf("over budget: allowed %q, which does not head for the shortest ending", v.tokens[id])
		}
	}
}

func TestMaskBias(t *testing.T) {
	v, eos := testVocab(t)
	g, _ := Compile([]byte(`{"type":"boolean"}`), Options{Whitespace: -1})
	m := g.Matcher(v)
	bias := make([]float32, v.Size())
	if err := m.Mask(bias, 0); err != nil {
		t.Fatal(err)
	}
	var allowed []string
	for id, b := range bias {
		switch {
		case b == 0:
			allowed = append(allowed, string(v.tokens[id]))
		case !math.IsInf(float64(b), -1):
			t.Fatalf("bias[%d] = %v, want 0 or -Inf", id, b)
		}
	}
	slices.Sort(allowed)
	if want := []string{"f", "t", "tr", "true"}; !slices.Equal(allowed, want) {
		t.Errorf("allowed %q, want %q", allowed, want)
	}
	for _, id := range []int{int('t'), int('r'), int('u'), int('e')} {
		if err := m.Advance(id); err != nil {
			t.Fatal(err)
		}
	}
	m.Mask(bias, 0)
	if bias[eos] != 0 || slices.Contains(bias[:eos], 0) {
		t.Errorf("after true: want only EOS allowed")
	}
	if err := m.Advance(int('x')); err == nil {
		t.Errorf("Advance of a banned token: want an error")
	}
	if err := m.Advance(eos); err != nil || !m.Finished() {
		t.Errorf("Advance(EOS) at the end: %v", err)
	}
}

// TestMatchersShareAGrammar: generations on one Grammar (as a server's
// cached grammar serves concurrent requests) each follow their own
// output; run with -race.
func TestMatchersShareAGrammar(t *testing.T) {
	v, eos := testVocab(t)
	g, err := Compile([]byte(personSchema), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			m := g.Matcher(v)
			bias := make([]float32, v.Size())
			var out []byte
			for n := 0; n < 80 && !m.Finished(); n++ {
				if err := m.Mask(bias, 80-n); err != nil {
					errs <- err
					return
				}
				var ok []int
				for id, b := range bias {
					if b == 0 {
						ok = append(ok, id)
					}
				}
				id := ok[rng.IntN(len(ok))]
				if err := m.Advance(id); err != nil {
					errs <- err
					return
				}
				if id != eos {
					out = append(out, v.tokens[id]...)
				}
			}
			if !json.Valid(out) || !g.Match(out) {
				errs <- fmt.Errorf("worker %d: %q is not a value of the schema", w, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestBanKeepsBiasAndHookFollows: Ban leaves the allowed tokens' bias as
// it was; Hook advances past the tokens it is handed and bans as Mask
// does, and on a token the grammar refuses leaves only end-of-generation.
func TestBanKeepsBiasAndHookFollows(t *testing.T) {
	v, eos := testVocab(t)
	g, _ := Compile([]byte(`{"type":"boolean"}`), Options{Whitespace: -1})
	bias := make([]float32, v.Size())
	bias['t'], bias['x'] = 2.5, 7
	if err := g.Matcher(v).Ban(bias, 0); err != nil {
		t.Fatal(err)
	}
	if bias['t'] != 2.5 || !math.IsInf(float64(bias['x']), -1) || bias['f'] != 0 {
		t.Errorf("Ban: t %v (want its 2.5 kept), x %v (want -Inf), f %v (want 0)", bias['t'], bias['x'], bias['f'])
	}
	m := g.Matcher(v)
	hook := m.Hook(10)
	mask := make([]float32, v.Size())
	for _, gen := range [][]int{{}, {'f'}, {'f', 'a', 'l'}, {'f', 'a', 'l', 's', 'e'}} {
		clear(bias)
		hook(gen, bias)
		ref := g.Matcher(v)
		for _, id := range gen {
			ref.Advance(id)
		}
		ref.Mask(mask, 10-len(gen))
		if !slices.Equal(bias, mask) {
			t.Errorf("after %v: Hook's bias differs from Mask's", gen)
		}
	}
	if m.Err() != nil {
		t.Fatal(m.Err())
	}
	m = g.Matcher(v)
	hook = m.Hook(0)
	hook([]int{'x'}, bias)
	if m.Err() == nil || bias[eos] != 0 || slices.Contains(bias[:eos], 0) {
		t.Errorf("a refused token: want Err set and only EOS left, got err %v", m.Err())
	}
}

// TestDFABound: a pattern whose DFA is exponential is rebuilt once it
// outgrows maxDFAStates (by at most one walk), the Matchers find their
// states again, and what is generated still matches.
func TestDFABound(t *testing.T) {
	defer func(n int) { maxDFAStates = n }(maxDFAStates)
	maxDFAStates = 300
	v, eos := testVocab(t)
	g, err := Compile([]byte(`{"type":"string","pattern":"^(a|b)*a(a|b){12}$"}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	other := g.Matcher(v) // lives across the rebuilds
	other.Advance('"')
	whole := 0
	for walk := 0; walk < 20; walk++ {
		m := g.Matcher(v)
		var out []byte
		for n := 0; n < 60 && !m.Finished(); n++ {
			ids, err := m.Allowed(60 - n)
			if err != nil {
				t.Fatal(err)
			}
			id := ids[rng.IntN(len(ids))]
			if err := m.Advance(id); err != nil {
				t.Fatal(err)
			}
			if id != eos {
				out = append(out, v.tokens[id]...)
			}
			if n := len(g.ix[v].d.sets); n > maxDFAStates+v.Nodes() {
				t.Fatalf("%d DFA states, over the bound %d and a walk", n, maxDFAStates)
			}
		}
		if m.Finished() {
			whole++
			if !g.Match(out) {
				t.Errorf("%q does not match the pattern", out)
			}
		}
	}
	if g.ix[v].epoch == 0 || whole == 0 {
		t.Errorf("%d rebuilds, %d whole outputs: want the bound reached and outputs finished", g.ix[v].epoch, whole)
	}
	if err := other.Advance('a'); err != nil || other.Complete() {
		t.Errorf("a Matcher from before the rebuilds: %v, complete %v", err, other.Complete())
	}
}
