package constrain

import "fmt"

// The grammar of a schema is regular: every construct but "any JSON
// value" is (objects list their properties, arrays loop over one item
// grammar), and any-JSON is unrolled to a bounded nesting (Options
// .MaxDepth). So a schema compiles to a byte-level NFA (Thompson's
// construction) that a lazy DFA runs: a recognizer state is one int, and
// walking the token trie from it is a table lookup per byte.

// edge is a byte-range transition.
type edge struct {
	lo, hi byte
	to     int32
}

// nfa is a Thompson NFA over bytes: each state has epsilon moves and
// byte-range moves; one state accepts.
type nfa struct {
	eps    [][]int32
	edges  [][]edge
	start  int32
	accept int32
}

// maxNFAStates bounds a compiled schema (a few MB of NFA): past it the
// schema is refused with a message rather than compiled slowly.
const maxNFAStates = 400_000

// maxBoundedLength and maxBoundedItems bound the counted repetitions,
// each of which is a copy of the repeated grammar.
const (
	maxBoundedLength = 1000
	maxBoundedItems  = 256
)

// frag is a piece of NFA with one entry and one exit.
type frag struct{ in, out int32 }

type builder struct {
	n   *nfa
	o   Options
	ws  bool // whitespace allowed in gaps
	err error
}

func (b *builder) state() int32 {
	if len(b.n.eps) >= maxNFAStates && b.err == nil {
		b.err = &SchemaError{Path: "#", Msg: fmt.Sprintf("the schema's grammar has over %d states: lower maxItems/maxLength, the nesting, or Options.MaxDepth", maxNFAStates)}
	}
	b.n.eps = append(b.n.eps, nil)
	b.n.edges = append(b.n.edges, nil)
	return int32(len(b.n.eps) - 1)
}

func (b *builder) epsilon(from, to int32) { b.n.eps[from] = append(b.n.eps[from], to) }

func (b *builder) rng(from int32, lo, hi byte, to int32) {
	b.n.edges[from] = append(b.n.edges[from], edge{lo, hi, to})
}

// bytes matches s literally.
func (b *builder) lit(s []byte) frag {
	in := b.state()
	cur := in
	for _, c := range s {
		nx := b.state()
		b.rng(cur, c, c, nx)
		cur = nx
	}
	return frag{in, cur}
}

// class matches one byte in the ranges (pairs lo, hi).
func (b *builder) class(r ...byte) frag {
	in, out := b.state(), b.state()
	for i := 0; i < len(r); i += 2 {
		b.rng(in, r[i], r[i+1], out)
	}
	return frag{in, out}
}

func (b *builder) seq(fs ...frag) frag {
	for i := 1; i < len(fs); i++ {
		b.epsilon(fs[i-1].out, fs[i].in)
	}
	return frag{fs[0].in, fs[len(fs)-1].out}
}

func (b *builder) alt(fs ...frag) frag {
	in, out := b.state(), b.state()
	for _, f := range fs {
		b.epsilon(in, f.in)
		b.epsilon(f.out, out)
	}
	return frag{in, out}
}

// opt matches f or nothing. Fresh ends: f's own may sit on a loop
// (star), where a skip edge would let the loop run without f.
func (b *builder) opt(f frag) frag {
	in, out := b.state(), b.state()
	b.epsilon(in, f.in)
	b.epsilon(f.out, out)
	b.epsilon(in, out)
	return frag{in, out}
}

// star loops f zero or more times.
func (b *builder) star(f frag) frag {
	in := b.state()
	b.epsilon(in, f.in)
	b.epsilon(f.out, in)
	return frag{in, in}
}

// repeat matches make() between lo and hi times (hi < 0: unbounded),
// each a fresh copy.
func (b *builder) repeat(lo, hi int, make func() frag) frag {
	in := b.state()
	cur := frag{in, in}
	for i := 0; i < lo; i++ {
		cur = b.seq(cur, make())
	}
	if hi < 0 {
		return b.seq(cur, b.star(make()))
	}
	// Optional copies in a row: x?x?x? (the NFA takes the ambiguity).
	for i := lo; i < hi; i++ {
		cur = b.seq(cur, b.opt(make()))
	}
	return cur
}

// gap is the whitespace allowed after an opening bracket or a comma
// and before a closing one: at most one line break, with up to
// Options.Whitespace blanks (space, tab) before and after it, so a model
// can write compact JSON or indent it, but cannot loop on blanks. Before
// ',' and ':' none is allowed, and after ':' one space (space): JSON as
// formatters write it, with fewer ways for a small model to wander.
func (b *builder) gap() frag {
	in := b.state()
	if !b.ws {
		return frag{in, in}
	}
	blanks := func() frag {
		cur := frag{in: b.state()}
		cur.out = cur.in
		for i := 0; i < b.o.Whitespace; i++ {
			cur = b.seq(cur, b.opt(b.class(' ', ' ', '\t', '\t')))
		}
		return cur
	}
	line := b.opt(b.seq(b.opt(b.lit([]byte{'\r'})), b.lit([]byte{'\n'}), blanks()))
	return b.seq(frag{in, in}, blanks(), line)
}

// space is the one optional space after ':'.
func (b *builder) space() frag {
	if !b.ws {
		in := b.state()
		return frag{in, in}
	}
	return b.opt(b.lit([]byte{' '}))
}

// utf8Char matches one UTF-8 encoded character that may stand
// unescaped in a JSON string (no control character, quote or
// backslash): the well-formed sequences of Unicode's table 3-7.
func (b *builder) utf8Char() frag {
	cont := func() frag { return b.class(0x80, 0xBF) }
	return b.alt(
		b.class(0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F),
		b.seq(b.class(0xC2, 0xDF), cont()),
		b.seq(b.class(0xE0, 0xE0), b.class(0xA0, 0xBF), cont()),
		b.seq(b.class(0xE1, 0xEC, 0xEE, 0xEF), cont(), cont()),
		b.seq(b.class(0xED, 0xED), b.class(0x80, 0x9F), cont()),
		b.seq(b.class(0xF0, 0xF0), b.class(0x90, 0xBF), cont(), cont()),
		b.seq(b.class(0xF1, 0xF3), cont(), cont(), cont()),
		b.seq(b.class(0xF4, 0xF4), b.class(0x80, 0x8F), cont(), cont()),
	)
}

// stringChar is one character of a JSON string: unescaped, or an escape.
func (b *builder) stringChar() frag {
	hex := func() frag { return b.class('0', '9', 'a', 'f', 'A', 'F') }
	esc := b.seq(b.lit([]byte{'\\'}), b.alt(
		b.class('"', '"', '\\', '\\', '/', '/', 'b', 'b', 'f', 'f', 'n', 'n', 'r', 'r', 't', 't'),
		b.seq(b.lit([]byte{'u'}), hex(), hex(), hex(), hex()),
	))
	return b.alt(b.utf8Char(), esc)
}

func (b *builder) str(lo, hi int) frag {
	return b.seq(b.lit([]byte{'"'}), b.repeat(lo, hi, b.stringChar), b.lit([]byte{'"'}))
}

// number matches a JSON number, its digit runs bounded (Options
// .MaxDigits) so a model cannot write digits forever; the default 15
// keeps integers exact in a float64.
func (b *builder) number(integer, nonNegative bool) frag {
	d := b.o.MaxDigits
	digit := func() frag { return b.class('0', '9') }
	intPart := b.alt(b.lit([]byte{'0'}), b.seq(b.class('1', '9'), b.repeat(0, d-1, digit)))
	parts := []frag{}
	if !nonNegative {
		parts = append(parts, b.opt(b.lit([]byte{'-'})))
	}
	parts = append(parts, intPart)
	if !integer {
		parts = append(parts,
			b.opt(b.seq(b.lit([]byte{'.'}), b.repeat(1, d, digit))),
			b.opt(b.seq(b.class('e', 'e', 'E', 'E'), b.opt(b.class('+', '+', '-', '-')), b.repeat(1, 2, digit))))
	}
	return b.seq(parts...)
}

// compile builds n's fragment; depth is the any-JSON nesting left.
func (b *builder) compile(n *node, depth int) frag {
	if b.err != nil {
		return frag{b.state(), b.state()}
	}
	switch n.kind {
	case kAny:
		return b.any(depth)
	case kLiteral:
		fs := make([]frag, len(n.lits))
		for i, l := range n.lits {
			fs[i] = b.lit(l)
		}
		return b.alt(fs...)
	case kString:
		if n.pattern != nil {
			return b.patternString(n.pattern)
		}
		return b.str(n.minN, n.maxN)
	case kNumber:
		return b.number(false, n.nonNegative)
	case kInteger:
		return b.number(true, n.nonNegative)
	case kAnyOf:
		fs := make([]frag, len(n.alts))
		for i, a := range n.alts {
			fs[i] = b.compile(a, depth)
		}
		return b.alt(fs...)
	case kArray:
		return b.array(n.minN, n.maxN, func() frag { return b.compile(n.items, depth-1) })
	case kObject:
		if len(n.props) == 0 {
			return b.mapOf(func() frag {
				if n.additional == nil {
					return frag{}
				}
				return b.compile(n.additional, depth-1)
			}, n.additional != nil)
		}
		return b.object(n.props, depth)
	}
	panic("constrain: unknown node kind")
}

func (b *builder) array(lo, hi int, item func() frag) frag {
	if hi == 0 {
		return b.seq(b.lit([]byte{'['}), b.gap(), b.lit([]byte{']'}))
	}
	sep := func() frag { return b.seq(b.lit([]byte{','}), b.gap()) }
	return b.seq(b.lit([]byte{'['}), b.gap(), b.list(lo, hi, item, sep), b.gap(), b.lit([]byte{']'}))
}

// list is lo … hi (hi < 0: any number) of item, sep between them. The
// unbounded tail is one copy of item looped through sep, so nested
// any-JSON grows by one copy per container kind and level, not two.
func (b *builder) list(lo, hi int, item, sep func() frag) frag {
	if hi < 0 && lo <= 1 {
		x := item()
		s := sep()
		b.epsilon(x.out, s.in)
		b.epsilon(s.out, x.in)
		// Fresh ends: an opt on x.in itself would let sep skip the item.
		in, out := b.state(), b.state()
		b.epsilon(in, x.in)
		b.epsilon(x.out, out)
		f := frag{in, out}
		if lo == 0 {
			f = b.opt(f)
		}
		return f
	}
	sepItem := func() frag { return b.seq(sep(), item()) }
	if lo == 0 {
		return b.opt(b.seq(item(), b.repeat(0, hi-1, sepItem)))
	}
	return b.seq(item(), b.repeat(lo-1, dec(hi), sepItem))
}

func dec(hi int) int {
	if hi < 0 {
		return -1
	}
	return hi - 1
}

// mapOf is an object of any keys, values from value (none when !values:
// only {}).
func (b *builder) mapOf(value func() frag, values bool) frag {
	if !values {
		return b.seq(b.lit([]byte{'{'}), b.gap(), b.lit([]byte{'}'}))
	}
	member := func() frag {
		return b.seq(b.str(0, -1), b.lit([]byte{':'}), b.space(), value())
	}
	sep := func() frag { return b.seq(b.lit([]byte{','}), b.gap()) }
	return b.seq(b.lit([]byte{'{'}), b.gap(), b.list(0, -1, member, sep), b.gap(), b.lit([]byte{'}'}))
}

// object lists props in their order; optional ones may be left out. Two
// entry states per property say whether a member came before (then a
// comma leads), so one copy of each value grammar serves both.
func (b *builder) object(props []prop, depth int) frag {
	open := b.seq(b.lit([]byte{'{'}), b.gap())
	first, more := open.out, int32(-1) // before property i: nothing yet / something written
	for _, p := range props {
		key := quote(p.name)
		member := b.seq(b.lit(key), b.lit([]byte{':'}), b.space(), b.compile(p.n, depth-1))
		nextFirst, nextMore := int32(-1), b.state()
		if first >= 0 {
			b.epsilon(first, member.in)
		}
		if more >= 0 {
			comma := b.seq(b.lit([]byte{','}), b.gap())
			b.epsilon(more, comma.in)
			b.epsilon(comma.out, member.in)
		}
		b.epsilon(member.out, nextMore)
		if !p.required {
			if first >= 0 {
				nextFirst = first
			}
			if more >= 0 {
				b.epsilon(more, nextMore)
			}
		}
		first, more = nextFirst, nextMore
	}
	closing := b.seq(b.gap(), b.lit([]byte{'}'}))
	if first >= 0 {
		b.epsilon(first, closing.in)
	}
	b.epsilon(more, closing.in)
	return frag{open.in, closing.out}
}

// any is any JSON value nested at most depth containers deep (at depth
// 0, only scalars and empty containers).
func (b *builder) any(depth int) frag {
	scalars := []frag{b.str(0, -1), b.number(false, false), b.lit([]byte("true")), b.lit([]byte("false")), b.lit([]byte("null"))}
	if depth <= 0 {
		return b.alt(append(scalars,
			b.seq(b.lit([]byte{'['}), b.gap(), b.lit([]byte{']'})),
			b.seq(b.lit([]byte{'{'}), b.gap(), b.lit([]byte{'}'})))...)
	}
	inner := func() frag { return b.any(depth - 1) }
	return b.alt(append(scalars, b.array(0, -1, inner), b.mapOf(inner, true))...)
}

// build compiles root (whitespace allowed around it, as between tokens).
func build(root *node, o Options) (*nfa, error) {
	b := &builder{n: &nfa{}, o: o, ws: o.Whitespace > 0}
	// Nothing around the value: it starts the output, and once it is
	// whole only end-of-generation may follow (a trailing gap let models
	// write newlines instead of ending).
	f := b.compile(root, o.MaxDepth)
	if b.err != nil {
		return nil, b.err
	}
	b.n.start, b.n.accept = f.in, f.out
	return b.n, nil
}
