package constrain

import (
	"fmt"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// A string's "pattern" is a regular expression on its characters (the
// decoded string, unanchored unless it says ^ or $). Go's regexp/syntax
// parses it (the syntax ECMA-262 and RE2 share: classes, \d \w \s,
// \p{…}, repetition, alternation, groups; not lookaround or
// backreferences, which it refuses), and the compiler turns the tree into
// the string's NFA: each character as the bytes a JSON string writes for
// it (UTF-8, and an escape for '"', '\' and control characters).

// parsePattern checks a pattern and returns its tree, simplified
// (counted repetitions expanded to the forms compile handles).
func parsePattern(p string) (*syntax.Regexp, error) {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %v (lookaround and backreferences are not supported)", p, err)
	}
	re = re.Simplify()
	if err := checkAnchors(re, true, true); err != nil {
		return nil, fmt.Errorf("pattern %q: %v", p, err)
	}
	return re, nil
}

// checkAnchors refuses ^ and $ except at the pattern's start and end
// (where they anchor it), and the word-boundary assertions.
func checkAnchors(re *syntax.Regexp, first, last bool) error {
	switch re.Op {
	case syntax.OpBeginText, syntax.OpBeginLine:
		if !first {
			return fmt.Errorf("^ is only supported at the start")
		}
	case syntax.OpEndText, syntax.OpEndLine:
		if !last {
			return fmt.Errorf("$ is only supported at the end")
		}
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return fmt.Errorf(`\b and \B are not supported`)
	case syntax.OpConcat:
		for i, s := range re.Sub {
			if err := checkAnchors(s, first && i == 0, last && i == len(re.Sub)-1); err != nil {
				return err
			}
		}
	case syntax.OpCapture:
		return checkAnchors(re.Sub[0], first, last)
	default:
		for _, s := range re.Sub {
			if err := checkAnchors(s, false, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// patternString is a JSON string whose characters match re: anchors
// that the pattern lacks become any characters before or after.
func (b *builder) patternString(re *syntax.Regexp) frag {
	begin, end := anchored(re)
	parts := []frag{b.lit([]byte{'"'})}
	if !begin {
		parts = append(parts, b.star(b.anyRune(true)))
	}
	parts = append(parts, b.regex(re))
	if !end {
		parts = append(parts, b.star(b.anyRune(true)))
	}
	return b.seq(append(parts, b.lit([]byte{'"'}))...)
}

func anchored(re *syntax.Regexp) (begin, end bool) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	switch re.Op {
	case syntax.OpBeginText, syntax.OpBeginLine:
		return true, false
	case syntax.OpEndText, syntax.OpEndLine:
		return false, true
	case syntax.OpConcat:
		if len(re.Sub) > 0 {
			b, _ := anchored(re.Sub[0])
			_, e := anchored(re.Sub[len(re.Sub)-1])
			return b, e
		}
	}
	return false, false
}

func (b *builder) regex(re *syntax.Regexp) frag {
	if b.err != nil {
		return frag{b.state(), b.state()}
	}
	empty := func() frag { in := b.state(); return frag{in, in} }
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpBeginLine, syntax.OpEndText, syntax.OpEndLine:
		return empty()
	case syntax.OpNoMatch:
		return frag{b.state(), b.state()} // no edge: nothing matches
	case syntax.OpLiteral:
		parts := []frag{empty()}
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				var rs []rune
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					rs = append(rs, f, f)
				}
				parts = append(parts, b.runeClass(append([]rune{r, r}, rs...)))
			} else {
				parts = append(parts, b.runeClass([]rune{r, r}))
			}
		}
		return b.seq(parts...)
	case syntax.OpCharClass:
		return b.runeClass(re.Rune)
	case syntax.OpAnyCharNotNL:
		return b.anyRune(false)
	case syntax.OpAnyChar:
		return b.anyRune(true)
	case syntax.OpCapture:
		return b.regex(re.Sub[0])
	case syntax.OpStar:
		return b.star(b.regex(re.Sub[0]))
	case syntax.OpPlus:
		return b.seq(b.regex(re.Sub[0]), b.star(b.regex(re.Sub[0])))
	case syntax.OpQuest:
		return b.opt(b.regex(re.Sub[0]))
	case syntax.OpRepeat:
		if max(re.Min, re.Max) > maxBoundedLength {
			b.err = &SchemaError{Path: "#", Msg: fmt.Sprintf("pattern repetition {%d,%d} is over %d", re.Min, re.Max, maxBoundedLength)}
			return empty()
		}
		return b.repeat(re.Min, re.Max, func() frag { return b.regex(re.Sub[0]) })
	case syntax.OpConcat:
		parts := []frag{empty()}
		for _, s := range re.Sub {
			parts = append(parts, b.regex(s))
		}
		return b.seq(parts...)
	case syntax.OpAlternate:
		parts := make([]frag, len(re.Sub))
		for i, s := range re.Sub {
			parts[i] = b.regex(s)
		}
		return b.alt(parts...)
	}
	b.err = &SchemaError{Path: "#", Msg: fmt.Sprintf("pattern construct %v is not supported", re.Op)}
	return empty()
}

func (b *builder) anyRune(nl bool) frag {
	if nl {
		return b.runeClass([]rune{0, unicode.MaxRune})
	}
	return b.runeClass([]rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune})
}

// runeClass matches one character of the ranges (pairs lo, hi) as a JSON
// string writes it: raw UTF-8, or its escape for '"', '\' and the
// control characters (the short one where JSON has it).
func (b *builder) runeClass(ranges []rune) frag {
	in, out := b.state(), b.state()
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for r := lo; r <= min(hi, 0x1F); r++ {
			f := b.lit(escapeRune(r))
			b.epsilon(in, f.in)
			b.epsilon(f.out, out)
		}
		for _, r := range []rune{'"', '\\'} {
			if lo <= r && r <= hi {
				f := b.lit(escapeRune(r))
				b.epsilon(in, f.in)
				b.epsilon(f.out, out)
			}
		}
		// Raw: the range less the controls, '"' and '\', and surrogates.
		for _, s := range subtract(max(lo, 0x20), hi, []rune{'"', '\\'}) {
			b.utf8Range(s[0], s[1], in, out)
		}
	}
	return frag{in, out}
}

func escapeRune(r rune) []byte {
	switch r {
	case '"':
		return []byte(`\"`)
	case '\\':
		return []byte(`\\`)
	case '\n':
		return []byte(`\n`)
	case '\t':
		return []byte(`\t`)
	case '\r':
		return []byte(`\r`)
	case '\b':
		return []byte(`\b`)
	case '\f':
		return []byte(`\f`)
	}
	return fmt.Appendf(nil, `\u%04x`, r)
}

// subtract returns [lo, hi] less the runes holes and the surrogates, as
// ranges.
func subtract(lo, hi rune, holes []rune) [][2]rune {
	if lo > hi {
		return nil
	}
	out := [][2]rune{{lo, hi}}
	cut := func(a, z rune) {
		var next [][2]rune
		for _, r := range out {
			if z < r[0] || a > r[1] {
				next = append(next, r)
				continue
			}
			if r[0] < a {
				next = append(next, [2]rune{r[0], a - 1})
			}
			if z < r[1] {
				next = append(next, [2]rune{z + 1, r[1]})
			}
		}
		out = next
	}
	for _, h := range holes {
		cut(h, h)
	}
	cut(0xD800, 0xDFFF)
	return out
}

// utf8Range adds to in → out the UTF-8 encodings of [lo, hi] (no
// surrogates in it) as byte-range sequences: the range is split until
// each piece's encodings differ only in a run of trailing bytes that
// span whole continuation ranges (the split RE2 and Rust's regex make).
func (b *builder) utf8Range(lo, hi rune, in, out int32) {
	if lo > hi {
		return
	}
	for _, lim := range []rune{0x7F, 0x7FF, 0xFFFF} {
		if lo <= lim && hi > lim {
			b.utf8Range(lo, lim, in, out)
			b.utf8Range(lim+1, hi, in, out)
			return
		}
	}
	if hi <= 0x7F {
		b.rng(in, byte(lo), byte(hi), out)
		return
	}
	n := utf8.RuneLen(lo)
	for i := 1; i < n; i++ {
		m := rune(1)<<(6*i) - 1
		if lo&^m != hi&^m {
			if lo&m != 0 {
				b.utf8Range(lo, lo|m, in, out)
				b.utf8Range((lo|m)+1, hi, in, out)
				return
			}
			if hi&m != m {
				b.utf8Range(lo, (hi&^m)-1, in, out)
				b.utf8Range(hi&^m, hi, in, out)
				return
			}
		}
	}
	var el, eh [4]byte
	utf8.EncodeRune(el[:], lo)
	utf8.EncodeRune(eh[:], hi)
	cur := in
	for i := 0; i < n; i++ {
		nx := out
		if i < n-1 {
			nx = b.state()
		}
		b.rng(cur, el[i], eh[i], nx)
		cur = nx
	}
}
