// Package constrain makes a language model's output match a JSON schema
// by construction (structured output, OpenAI's response_format): the
// schema compiles to a byte-level recognizer, and before each step a
// Matcher computes which tokens of the vocabulary keep the output on a
// path to a valid value. The mask is an additive bias (0 allowed, -Inf
// banned) that the sampler adds to the logits, so whatever it draws, the
// text parses and validates. End-of-generation is allowed only once the
// value is complete.
//
// The schema subset is what structured-output APIs take: objects with
// properties (generated in the schema's order; optional ones may be
// left out), required and additionalProperties (false, or a schema for
// maps), strings with minLength/maxLength or a pattern (the regular
// syntax ECMA-262 and RE2 share, pattern.go), enum and const of any JSON
// values, number and integer (minimum: 0 only), boolean, null, arrays
// with items, minItems and maxItems, anyOf, type lists ("type":
// ["string", "null"]), nullable, single-schema allOf, and local $ref
// into $defs (not recursive). Keywords whose constraint the grammar does
// not express (maximum, multipleOf, oneOf, not, lookaround in a pattern,
// …) are refused with a SchemaError naming them: the output would not
// always validate.
// Annotations (title, description, default, format, …) are ignored.
//
// Three bounds make every generation finish: whitespace between JSON
// tokens is at most Options.Whitespace bytes a gap, numbers have at most
// Options.MaxDigits digits a part, and Mask takes the tokens left in the
// budget: a token is allowed only if the value can still be closed in
// the tokens that remain after it, so strings and arrays close as the
// budget runs out (the distance is counted in bytes that are tokens
// alone, an upper bound on the tokens needed).
//
// How: the grammar is regular (any-JSON is unrolled to Options.MaxDepth
// containers), so it is a Thompson NFA run as a lazy DFA (states built
// on first visit, as RE2 does); a recognizer state is one int. The
// vocabulary's trie (Vocab) is walked from that state, one table lookup
// per byte, pruning each rejected prefix; the masks of states seen
// before come from a cache. On SmolLM2's 49,152 tokens a mask costs
// tens of µs cached and about a millisecond for a new state (see
// BenchmarkMask).
package constrain

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
)

// Options shape the grammar.
type Options struct {
	// Whitespace is the most whitespace bytes allowed in each gap between
	// JSON tokens (0: the default, 8; negative: none, compact output).
	Whitespace int
	// MaxDepth is how deeply containers may nest inside a value the schema
	// leaves open (json_object, an untyped property): 0 is the default, 5.
	MaxDepth int
	// MaxDigits is the most digits in a number's integer part and in its
	// fraction (0: the default, 15).
	MaxDigits int
}

func (o Options) withDefaults() Options {
	switch {
	case o.Whitespace == 0:
		o.Whitespace = 8
	case o.Whitespace < 0:
		o.Whitespace = 0
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 5
	}
	if o.MaxDigits <= 0 {
		o.MaxDigits = 15
	}
	return o
}

// Grammar is a compiled schema. It is safe for concurrent use; its
// Matchers share its automaton and mask cache per Vocab.
type Grammar struct {
	nfa *nfa
	mu  sync.Mutex
	ix  map[*Vocab]*index
}

// Compile compiles a JSON schema (its JSON text). A schema it cannot
// take is a *SchemaError naming the part.
func Compile(schema []byte, o Options) (*Grammar, error) {
	o = o.withDefaults()
	n, err := parseSchema(schema, o)
	if err != nil {
		return nil, err
	}
	return compileNode(n, o)
}

// JSONObject is the grammar of any JSON object (OpenAI's
// {"type": "json_object"}).
func JSONObject(o Options) *Grammar {
	o = o.withDefaults()
	g, err := compileNode(&node{kind: kObject, additional: &node{kind: kAny}}, o)
	if err != nil {
		panic(err) // a fixed grammar, far under the size bound
	}
	return g
}

func compileNode(n *node, o Options) (*Grammar, error) {
	a, err := build(n, o)
	if err != nil {
		return nil, err
	}
	return &Grammar{nfa: a, ix: map[*Vocab]*index{}}, nil
}

// Match reports whether text is a value of the grammar (whitespace
// within its bounds).
func (g *Grammar) Match(text []byte) bool {
	ix := g.index(nil)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.settle()
	s := ix.d.start
	for _, c := range text {
		if s = ix.d.step(s, c); s < 0 {
			return false
		}
	}
	return ix.d.accept[s]
}

// States is the size of the grammar's NFA (a measure of its cost).
func (g *Grammar) States() int { return len(g.nfa.eps) }

func (g *Grammar) index(v *Vocab) *index {
	g.mu.Lock()
	defer g.mu.Unlock()
	if ix, ok := g.ix[v]; ok {
		return ix
	}
	ix := &index{v: v, d: newDFA(g.nfa, v, nil), cache: map[int32]*maskEntry{}}
	g.ix[v] = ix
	return ix
}

// index is a grammar's automaton and masks for one vocabulary.
type index struct {
	mu    sync.Mutex
	v     *Vocab
	d     *dfa
	cache map[int32]*maskEntry
	stack []int32 // the walk's DFA state at each trie depth
	epoch int     // rebuilds of d so far (settle)
}

// settle rebuilds the DFA from scratch once it outgrew maxDFAStates
// (some patterns, as (a|b)*a(a|b){20}, have exponentially many states):
// its states and masks go, and each Matcher finds its state again from
// its NFA set (sync). Called under the lock, between walks, so no walk
// holds a state id across it; a walk may overshoot the bound by at most
// the trie's size.
func (ix *index) settle() {
	if len(ix.d.sets) < maxDFAStates {
		return
	}
	ix.d = newDFA(ix.d.n, ix.v, ix.d.nfaDist)
	clear(ix.cache)
	ix.epoch++
}

// maskEntry is the tokens allowed from a state when the budget binds
// none of them: need is the largest distance to the end after one of
// them, so the entry serves every remaining-1 ≥ need.
type maskEntry struct {
	bits []uint64
	need int32
}

// maxCached bounds the masks a grammar keeps per vocabulary (each is
// vocab/8 bytes: 6 KiB for SmolLM2, so 3 MiB at most); a full cache is
// emptied and refills with the states in use. A generation visits a few
// hundred states at most, and a mask not cached costs one trie walk.
const maxCached = 512

// walk sets in out the tokens allowed from s whose distance to the end
// after them is at most budget, and returns the largest and smallest
// distance over every token the grammar accepts (inf when none).
func (ix *index) walk(s int32, budget int32, out []uint64) (need, least int32) {
	v, d := ix.v, ix.d
	if cap(ix.stack) < v.depthMax+1 {
		ix.stack = make([]int32, v.depthMax+1)
	}
	st := ix.stack[:v.depthMax+1]
	st[0] = s
	need, least = -1, inf
	n := int32(len(v.label))
	for i := int32(0); i < n; {
		dep := v.depth[i]
		t := d.step(st[dep-1], v.label[i])
		if t < 0 {
			i = v.skip[i]
			continue
		}
		st[dep] = t
		if id := v.tok[i]; id >= 0 {
			dist := d.dist[t]
			if dist < inf {
				need = max(need, dist)
			}
			least = min(least, dist)
			if dist <= budget {
				out[id>>6] |= 1 << (id & 63)
				for _, x := range v.dup[i] {
					out[x>>6] |= 1 << (x & 63)
				}
			}
		}
		i++
	}
	return need, least
}

// Matcher follows one generation through a grammar.
type Matcher struct {
	ix       *index
	state    int32
	finished bool // an end-of-generation token was taken
	scratch  []uint64
	err      error // Hook's first error
	// epoch is the index's epoch that state belongs to; set is the
	// state's NFA set, to find it again after the DFA was rebuilt.
	epoch int
	set   []int32
}

// sync brings m's state into the index's current DFA (after a rebuild,
// settle), under the index's lock.
func (m *Matcher) sync() {
	m.ix.settle()
	if m.epoch != m.ix.epoch {
		m.state, m.epoch = m.ix.d.state(m.set), m.ix.epoch
	}
}

// Matcher starts a generation over v's tokens.
func (g *Grammar) Matcher(v *Vocab) *Matcher {
	if v == nil {
		panic("constrain: Matcher needs a Vocab (NewVocab)")
	}
	ix := g.index(v)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.settle()
	return &Matcher{ix: ix, state: ix.d.start, epoch: ix.epoch, set: ix.d.sets[ix.d.start]}
}

// Complete reports whether the text so far is a whole value.
func (m *Matcher) Complete() bool {
	m.ix.mu.Lock()
	defer m.ix.mu.Unlock()
	m.sync()
	return m.ix.d.accept[m.state]
}

// Finished reports whether an end-of-generation token was taken.
func (m *Matcher) Finished() bool { return m.finished }

// Allowed returns the allowed token ids for the next step with remaining
// tokens left in the budget (this one included), ascending; Mask is the
// same set as a bias.
func (m *Matcher) Allowed(remaining int) ([]int, error) {
	w, err := m.allowed(remaining)
	if err != nil {
		return nil, err
	}
	var ids []int
	for i, x := range w {
		for x != 0 {
			ids = append(ids, i*64+bits.TrailingZeros64(x))
			x &= x - 1
		}
	}
	return ids, nil
}

// Mask writes the next token's bias into bias (one float per token id):
// 0 where allowed, -Inf where banned. remaining is how many tokens the
// generation may still make, this one included (≤ 0: unbounded): a
// token is allowed only if the value can be finished within the rest.
// If the budget is already too small for any valid ending, the tokens
// that come closest to one are allowed, so the output is as near a
// value as the budget permits.
func (m *Matcher) Mask(bias []float32, remaining int) error {
	if len(bias) != m.ix.v.Size() {
		return fmt.Errorf("constrain.Mask: bias has %d entries for a vocabulary of %d tokens", len(bias), m.ix.v.Size())
	}
	w, err := m.allowed(remaining)
	if err != nil {
		return err
	}
	ninf := float32(math.Inf(-1))
	for i := range bias {
		bias[i] = ninf
	}
	for i, x := range w {
		for x != 0 {
			bias[i*64+bits.TrailingZeros64(x)] = 0
			x &= x - 1
		}
	}
	return nil
}

// Ban is Mask that keeps what bias holds for the allowed tokens (a
// request's logit_bias, say) and sets the banned ones to -Inf: the form a
// step whose bias input already carries the logit bias wants.
func (m *Matcher) Ban(bias []float32, remaining int) error {
	if len(bias) != m.ix.v.Size() {
		return fmt.Errorf("constrain.Ban: bias has %d entries for a vocabulary of %d tokens", len(bias), m.ix.v.Size())
	}
	w, err := m.allowed(remaining)
	if err != nil {
		return err
	}
	ninf := float32(math.Inf(-1))
	for i, x := range w {
		base := i * 64
		for k := range min(64, len(bias)-base) {
			if x&(1<<k) == 0 {
				bias[base+k] = ninf
			}
		}
	}
	return nil
}

// Hook adapts m to a batched generation's per-row bias callback
// (models/llama's Hooks.Bias): called before each step with the tokens
// generated so far and the row's bias, it advances m past the new tokens
// and bans (Ban) what m does not allow, with maxTokens the request's
// budget (≤ 0: unbounded). A callback cannot return an error: on one, the
// row is left only its end-of-generation tokens (so it ends at once), and
// Err reports it.
func (m *Matcher) Hook(maxTokens int) func(generated []int, bias []float32) {
	seen := 0
	return func(generated []int, bias []float32) {
		for ; m.err == nil && seen < len(generated); seen++ {
			m.err = m.Advance(generated[seen])
		}
		remaining := 0
		if maxTokens > 0 {
			remaining = max(maxTokens-len(generated), 1)
		}
		if m.err == nil {
			m.err = m.Ban(bias, remaining)
		}
		if m.err != nil {
			ninf := float32(math.Inf(-1))
			for i := range bias {
				bias[i] = ninf
			}
			for _, id := range m.ix.v.eog {
				bias[id] = 0
			}
		}
	}
}

// Err is the first error a Hook met (nil if none).
func (m *Matcher) Err() error { return m.err }

// allowed is the bit set of the next tokens (valid until the next call).
func (m *Matcher) allowed(remaining int) ([]uint64, error) {
	if m.finished {
		return nil, fmt.Errorf("constrain: the generation has ended (an end-of-generation token was taken)")
	}
	ix := m.ix
	ix.mu.Lock()
	defer ix.mu.Unlock()
	words := (ix.v.Size() + 63) / 64
	if cap(m.scratch) < words {
		m.scratch = make([]uint64, words)
	}
	out := m.scratch[:words]
	m.sync()
	budget := int32(inf - 1)
	if remaining > 0 {
		budget = int32(min(remaining-1, inf-1))
	}
	accept := ix.d.accept[m.state]
	if e, ok := ix.cache[m.state]; ok && e.need <= budget {
		copy(out, e.bits)
	} else {
		clear(out)
		need, least := ix.walk(m.state, budget, out)
		if !slices.ContainsFunc(out, func(x uint64) bool { return x != 0 }) && !accept {
			if least >= inf {
				return nil, fmt.Errorf("constrain: no token of the vocabulary continues the output here (the grammar needs bytes no token has)")
			}
			// Over budget: the tokens that come closest to an ending.
			ix.walk(m.state, least, out)
		}
		if need <= budget {
			if len(ix.cache) >= maxCached {
				clear(ix.cache)
			}
			ix.cache[m.state] = &maskEntry{bits: slices.Clone(out), need: need}
		}
	}
	if accept {
		for _, id := range ix.v.eog {
			out[id>>6] |= 1 << (id & 63)
		}
	}
	return out, nil
}

// Advance moves past the token id picked. A token the grammar rejects is
// an error (and leaves the state as it was): it cannot come from a
// masked step.
func (m *Matcher) Advance(id int) error {
	v := m.ix.v
	if id < 0 || id >= v.Size() {
		return fmt.Errorf("constrain.Advance: token %d is outside the vocabulary [0, %d)", id, v.Size())
	}
	if m.finished {
		return fmt.Errorf("constrain.Advance: token %d after the end of generation", id)
	}
	ix := m.ix
	ix.mu.Lock()
	defer ix.mu.Unlock()
	m.sync()
	if slices.Contains(v.eog, id) {
		if !ix.d.accept[m.state] {
			return fmt.Errorf("constrain.Advance: end-of-generation token %d before the value is complete", id)
		}
		m.finished = true
		return nil
	}
	s := m.state
	for _, c := range v.tokens[id] {
		if s = ix.d.step(s, c); s < 0 {
			return fmt.Errorf("constrain.Advance: token %d (%q) does not continue the output here", id, v.tokens[id])
		}
	}
	if len(v.tokens[id]) == 0 {
		return fmt.Errorf("constrain.Advance: token %d has no text (a special token)", id)
	}
	m.state, m.set = s, ix.d.sets[s]
	return nil
}

// inf is the distance of a state from which no ending is reachable.
const inf = 1 << 30

// dfa runs an NFA lazily: each state is a set of NFA states, built the
// first time a walk reaches it. Transitions are per byte class (bytes
// no edge tells apart share a column).
type dfa struct {
	n      *nfa
	class  [256]uint8
	rep    []byte // one byte of each class
	sets   [][]int32
	ids    map[string]int32
	next   []int32 // [state*classes + class]: unknown, dead or a state
	accept []bool
	dist   []int32 // bytes to an ending, counting bytes that are tokens alone
	start  int32
	// nfaDist is each NFA state's distance to the accepting one.
	nfaDist []int32
	mark    []uint32
	gen     uint32
	work    []int32
	key     []byte
}

const (
	unknown = -2
	dead    = -1
)

func newDFA(a *nfa, v *Vocab, dist []int32) *dfa {
	d := &dfa{n: a, ids: map[string]int32{}, mark: make([]uint32, len(a.eps))}
	var cut [257]bool
	cut[0] = true
	for _, es := range a.edges {
		for _, e := range es {
			cut[e.lo], cut[int(e.hi)+1] = true, true
		}
	}
	c := -1
	for b := 0; b < 256; b++ {
		if cut[b] {
			c++
			d.rep = append(d.rep, byte(b))
		}
		d.class[b] = uint8(c)
	}
	d.nfaDist = dist
	if d.nfaDist == nil {
		d.nfaDist = nfaDistances(a, v)
	}
	d.start = d.state(d.closure([]int32{a.start}))
	return d
}

// nfaDistances is a 0-1 BFS back from the accepting state: epsilon
// moves cost 0, a byte costs 1 if some byte of its range is a token
// alone (so a path of them is at most that many tokens), else the edge
// is not counted as a way to finish. Without a vocabulary, every byte.
func nfaDistances(a *nfa, v *Vocab) []int32 {
	n := len(a.eps)
	type redge struct {
		from int32
		w    int32
	}
	rev := make([][]redge, n)
	for q := range a.eps {
		for _, t := range a.eps[q] {
			rev[t] = append(rev[t], redge{int32(q), 0})
		}
		for _, e := range a.edges[q] {
			ok := v == nil
			for b := int(e.lo); !ok && b <= int(e.hi); b++ {
				ok = v.single[b]
			}
			if ok {
				rev[e.to] = append(rev[e.to], redge{int32(q), 1})
			}
		}
	}
	dist := make([]int32, n)
	for i := range dist {
		dist[i] = inf
	}
	// Level by level: 0-edges extend the current level, 1-edges the next;
	// an entry whose distance dropped since it was queued is stale.
	dist[a.accept] = 0
	cur := []int32{a.accept}
	for level := int32(0); len(cur) > 0; level++ {
		var next []int32
		for i := 0; i < len(cur); i++ {
			q := cur[i]
			if dist[q] != level {
				continue
			}
			for _, r := range rev[q] {
				if nd := level + r.w; nd < dist[r.from] {
					dist[r.from] = nd
					if r.w == 0 {
						cur = append(cur, r.from)
					} else {
						next = append(next, r.from)
					}
				}
			}
		}
		cur = next
	}
	return dist
}

// closure is the epsilon closure of set, sorted.
func (d *dfa) closure(set []int32) []int32 {
	d.gen++
	out := make([]int32, 0, len(set)*2)
	work := append(d.work[:0], set...)
	for _, q := range set {
		d.mark[q] = d.gen
	}
	for len(work) > 0 {
		q := work[len(work)-1]
		work = work[:len(work)-1]
		out = append(out, q)
		for _, t := range d.n.eps[q] {
			if d.mark[t] != d.gen {
				d.mark[t] = d.gen
				work = append(work, t)
			}
		}
	}
	d.work = work
	slices.Sort(out)
	return out
}

// maxDFAStates bounds a grammar's lazy DFA between walks (index.settle).
var maxDFAStates = 200_000

// state interns a closed set.
func (d *dfa) state(set []int32) int32 {
	if len(set) == 0 {
		return dead
	}
	d.key = d.key[:0]
	for _, q := range set {
		d.key = binary.LittleEndian.AppendUint32(d.key, uint32(q))
	}
	if id, ok := d.ids[string(d.key)]; ok {
		return id
	}
	id := int32(len(d.sets))
	d.ids[string(d.key)] = id
	d.sets = append(d.sets, set)
	acc, dist := false, int32(inf)
	for _, q := range set {
		acc = acc || q == d.n.accept
		dist = min(dist, d.nfaDist[q])
	}
	d.accept = append(d.accept, acc)
	d.dist = append(d.dist, dist)
	for range d.rep {
		d.next = append(d.next, unknown)
	}
	return id
}

// step is the DFA's move from s on byte c (dead: no move).
func (d *dfa) step(s int32, c byte) int32 {
	k := int(s)*len(d.rep) + int(d.class[c])
	if t := d.next[k]; t != unknown {
		return t
	}
	var to []int32
	for _, q := range d.sets[s] {
		for _, e := range d.n.edges[q] {
			if e.lo <= c && c <= e.hi && !slices.Contains(to, e.to) {
				to = append(to, e.to)
			}
		}
	}
	t := d.state(d.closure(to))
	d.next[k] = t
	return t
}
