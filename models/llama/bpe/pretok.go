package bpe

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// The pre-tokenizer cuts text into words before BPE merges them; no merge
// crosses a word boundary. llama.cpp names each one by the GGUF key
// tokenizer.ggml.pre and defines it as a list of regular expressions
// (src/llama-vocab.cpp, llm_tokenizer_bpe), applied one after the other:
// each splits every fragment the previous ones left, and the text between
// two matches stays a fragment of its own.
//
// Why hand-written rather than a regexp library: Go's regexp has no
// lookahead (\s+(?!\S)); github.com/dlclark/regexp2 has it, but it is a
// backtracking engine and a new module, and llama.cpp itself does not run
// these expressions: for GPT-2, Llama 3 and Qwen2 it uses hand-written
// splitters (src/unicode.cpp, unicode_regex_split_custom_*), and for the
// digit and punctuation rules a std::regex over a "collapsed" text (one
// byte per code point's category). The splitters below follow those,
// branch for branch, in one pass over the code points with no
// backtracking; what llama.cpp runs is what they must agree with, and the
// fixture from its own tokenizer is the test of record (SmolLM2's
// vocabulary under the smollm, gpt-2, llama-bpe, qwen2 and default rules).
//
// Character classes come from Go's unicode package (\p{L}: IsLetter,
// \p{N}: IsNumber, \p{P}: IsPunct, \s: IsSpace, which is the same
// White_Space set as llama.cpp's unicode_set_whitespace). Go's Unicode
// tables and llama.cpp's may differ by a Unicode version on code points
// assigned recently; no fixture string uses one.

// flag bits of one code point.
const (
	fLetter uint8 = 1 << iota
	fNumber
	fSpace
	fPunct
)

// frag is the text of one raw fragment as code points, with their flags.
// An offset list (run lengths, in code points) says where the words are,
// as llama.cpp's bpe_offsets does.
type frag struct {
	cps []rune
	fl  []uint8
}

func newFrag(s string) *frag {
	f := &frag{cps: make([]rune, 0, len(s)), fl: make([]uint8, 0, len(s))}
	// Invalid UTF-8 reads as U+FFFD, one byte at a time, as llama.cpp's
	// unicode_cpts_from_utf8 does.
	for _, r := range s {
		f.cps = append(f.cps, r)
		f.fl = append(f.fl, flagsOf(r))
	}
	return f
}

func flagsOf(r rune) uint8 {
	if r < 0x80 {
		return asciiFlags[r]
	}
	var fl uint8
	switch {
	case unicode.IsLetter(r):
		fl = fLetter
	case unicode.IsNumber(r):
		fl = fNumber
	case unicode.IsPunct(r):
		fl = fPunct
	}
	if unicode.IsSpace(r) {
		fl |= fSpace
	}
	return fl
}

var asciiFlags = func() (t [128]uint8) {
	for r := rune(0); r < 128; r++ {
		switch {
		case unicode.IsLetter(r):
			t[r] = fLetter
		case unicode.IsNumber(r):
			t[r] = fNumber
		case unicode.IsPunct(r):
			t[r] = fPunct
		}
		if unicode.IsSpace(r) {
			t[r] |= fSpace
		}
	}
	return t
}()

// splitter refines the offsets of f: each run is cut further.
type splitter func(f *frag, offs []int) []int

// preTokenizer is one entry of llama.cpp's pre-type table.
type preTokenizer struct {
	splitters    []splitter
	ignoreMerges bool // a word that is a whole token is not merged (Llama 3)
	addBOS       bool // the default when the GGUF has no add_bos_token
}

var (
	gpt2Pre   = preTokenizer{splitters: []splitter{splitGPT2}}
	digitsPre = preTokenizer{splitters: []splitter{splitEachDigit, splitGPT2}}
	llama3Pre = preTokenizer{splitters: []splitter{splitLlama3}, ignoreMerges: true, addBOS: true}
	qwen2Pre  = preTokenizer{splitters: []splitter{splitQwen2}}
	// "default" and a GGUF without tokenizer.ggml.pre: llama.cpp warns and
	// uses these four expressions in turn.
	defaultPre = preTokenizer{splitters: []splitter{splitPunctRuns, splitGPT2, splitNumberRuns, splitASCIIDigits3}}
)

// preTokenizers maps tokenizer.ggml.pre to its rules, as llama.cpp's
// llama_vocab::impl::load does (the names whose regexes are the ones
// implemented here; other names are refused, by name).
var preTokenizers = map[string]preTokenizer{
	"default": defaultPre,
	"":        defaultPre,

	// \p{N}, then the GPT-2 expression: digits one by one.
	"smollm":     digitsPre,
	"starcoder":  digitsPre,
	"refact":     digitsPre,
	"command-r":  digitsPre,
	"codeshell":  digitsPre,
	"exaone":     digitsPre,
	"minerva-7b": digitsPre,
	"mellum2":    digitsPre,

	// The GPT-2 expression alone.
	"gpt-2":           gpt2Pre,
	"phi-2":           gpt2Pre,
	"jina-es":         gpt2Pre,
	"jina-de":         gpt2Pre,
	"gigachat":        gpt2Pre,
	"jina-v2-es":      gpt2Pre,
	"jina-v2-de":      gpt2Pre,
	"a.x-4.0":         gpt2Pre,
	"mellum":          gpt2Pre,
	"modern-bert":     gpt2Pre,
	"exaone4":         gpt2Pre,
	"mpt":             gpt2Pre,
	"olmo":            gpt2Pre,
	"jais":            gpt2Pre,
	"trillion":        gpt2Pre,
	"granite-docling": gpt2Pre,

	// Llama 3's expression (numbers in groups of three), whole-token words
	// kept unmerged, BOS added by default.
	"llama3":       llama3Pre,
	"llama-v3":     llama3Pre,
	"llama-bpe":    llama3Pre,
	"falcon3":      llama3Pre,
	"falcon-h1":    llama3Pre,
	"pixtral":      llama3Pre,
	"midm-2.0":     llama3Pre,
	"lfm2":         llama3Pre,
	"jina-v5-nano": llama3Pre,

	// Qwen2's: Llama 3's with single digits, merges always applied.
	"qwen2":            qwen2Pre,
	"deepseek-r1-qwen": qwen2Pre,
	"kormo":            qwen2Pre,
	"f2llmv2":          qwen2Pre,
	"stablelm2":        qwen2Pre,
	"hunyuan":          qwen2Pre,
	"solar-open":       qwen2Pre,
}

func lookupPre(name string) (preTokenizer, error) {
	if p, ok := preTokenizers[name]; ok {
		return p, nil
	}
	names := make([]string, 0, len(preTokenizers))
	for n := range preTokenizers {
		if n != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return preTokenizer{}, fmt.Errorf("pre-tokenizer %q (tokenizer.ggml.pre) is not supported; supported: %s", name, strings.Join(names, ", "))
}

// split runs the splitters over f and returns the words' run lengths.
func (p *preTokenizer) split(f *frag) []int {
	offs := []int{len(f.cps)}
	for _, s := range p.splitters {
		offs = s(f, offs)
	}
	return offs
}

// eachRun calls fn for every run [ini, end) of offs and collects the
// lengths that fn emits.
func eachRun(offs []int, fn func(ini, end int, emit func(n int))) []int {
	out := make([]int, 0, len(offs)+8)
	emit := func(n int) {
		if n > 0 {
			out = append(out, n)
		}
	}
	start := 0
	for _, n := range offs {
		fn(start, start+n, emit)
		start += n
	}
	return out
}

// splitClassRuns isolates the maximal runs of code points for which in
// holds (one code point per match when single), the rest stays in
// fragments between them: a std::regex "[class]+" or "[class]" split.
func splitClassRuns(f *frag, offs []int, in func(i int) bool, single bool) []int {
	return eachRun(offs, func(ini, end int, emit func(int)) {
		prev := ini
		for i := ini; i < end; {
			if !in(i) {
				i++
				continue
			}
			emit(i - prev)
			j := i + 1
			if !single {
				for j < end && in(j) {
					j++
				}
			}
			emit(j - i)
			prev, i = j, j
		}
		emit(end - prev)
	})
}

// splitEachDigit is "\p{N}": every number code point is a word alone.
func splitEachDigit(f *frag, offs []int) []int {
	return splitClassRuns(f, offs, func(i int) bool { return f.fl[i]&fNumber != 0 }, true)
}

// splitNumberRuns is "\p{N}+".
func splitNumberRuns(f *frag, offs []int) []int {
	return splitClassRuns(f, offs, func(i int) bool { return f.fl[i]&fNumber != 0 }, false)
}

// splitPunctRuns is "[\p{P}\$\+<=>\^~\|]+".
func splitPunctRuns(f *frag, offs []int) []int {
	return splitClassRuns(f, offs, func(i int) bool {
		if f.fl[i]&fPunct != 0 {
			return true
		}
		switch f.cps[i] {
		case '$', '+', '<', '=', '>', '^', '~', '|':
			return true
		}
		return false
	}, false)
}

// splitASCIIDigits3 is "[0-9][0-9][0-9]": leftmost groups of three ASCII
// digits.
func splitASCIIDigits3(f *frag, offs []int) []int {
	d := func(i int) bool { return f.cps[i] >= '0' && f.cps[i] <= '9' }
	return eachRun(offs, func(ini, end int, emit func(int)) {
		prev := ini
		for i := ini; i+2 < end; {
			if d(i) && d(i+1) && d(i+2) {
				emit(i - prev)
				emit(3)
				i += 3
				prev = i
				continue
			}
			i++
		}
		emit(end - prev)
	})
}

// contraction reports the length (2 or 3) of 's 't 're 've 'm 'll 'd at
// i, 0 if none; fold lowers the letters first (Llama 3 and Qwen2 match
// them case-insensitively, GPT-2 does not).
func contraction(f *frag, i, end int, fold bool) int {
	if f.cps[i] != '\'' || i+1 >= end {
		return 0
	}
	low := func(r rune) rune {
		if fold {
			return unicode.ToLower(r)
		}
		return r
	}
	switch low(f.cps[i+1]) {
	case 's', 't', 'm', 'd':
		return 2
	}
	if i+2 < end {
		a, b := low(f.cps[i+1]), low(f.cps[i+2])
		if (a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l') {
			return 3
		}
	}
	return 0
}

// splitGPT2 is GPT-2's
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
func splitGPT2(f *frag, offs []int) []int {
	return eachRun(offs, func(ini, end int, emit func(int)) {
		flags := func(i int) (uint8, bool) {
			if i < end {
				return f.fl[i], true
			}
			return 0, false
		}
		prev := ini
		tok := func(to int) { emit(to - prev); prev = to }
		for pos := ini; pos < end; {
			if n := contraction(f, pos, end, false); n > 0 {
				pos += n
				tok(pos)
				continue
			}
			sp := f.cps[pos] == ' '
			look := pos
			if sp {
				look = pos + 1
			}
			fl2, ok := flags(look)
			switch {
			case fl2&fLetter != 0, fl2&fNumber != 0:
				cls := fl2 & (fLetter | fNumber)
				pos = look
				for pos < end && f.fl[pos]&cls != 0 {
					pos++
				}
				tok(pos)
				continue
			case ok && fl2&(fSpace|fLetter|fNumber) == 0:
				pos = look
				for pos < end && f.fl[pos]&(fSpace|fLetter|fNumber) == 0 {
					pos++
				}
				tok(pos)
				continue
			}
			nws := 0
			for pos+nws < end && f.fl[pos+nws]&fSpace != 0 {
				nws++
			}
			switch {
			case nws > 1 && pos+nws < end: // \s+(?!\S): leave the last one to the next word
				pos += nws - 1
			case nws > 0:
				pos += nws
			default:
				pos++
			}
			tok(pos)
		}
	})
}

// splitLlama3 is Llama 3's (digits: up to three per word)
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func splitLlama3(f *frag, offs []int) []int { return splitLlamaLike(f, offs, 3) }

// splitQwen2 is Qwen2's: Llama 3's with \p{N} one digit per word.
func splitQwen2(f *frag, offs []int) []int { return splitLlamaLike(f, offs, 1) }

func splitLlamaLike(f *frag, offs []int, maxDigits int) []int {
	return eachRun(offs, func(ini, end int, emit func(int)) {
		prev := ini
		tok := func(to int) { emit(to - prev); prev = to }
		isNL := func(i int) bool { return i < end && (f.cps[i] == '\r' || f.cps[i] == '\n') }
		letter := func(i int) bool { return i < end && f.fl[i]&fLetter != 0 }
		for pos := ini; pos < end; {
			if n := contraction(f, pos, end, true); n > 0 {
				pos += n
				tok(pos)
				continue
			}
			cp, fl := f.cps[pos], f.fl[pos]
			// [^\r\n\p{L}\p{N}]?\p{L}+
			if cp != '\r' && cp != '\n' && fl&fNumber == 0 && (fl&fLetter != 0 || letter(pos+1)) {
				pos++
				for letter(pos) {
					pos++
				}
				tok(pos)
				continue
			}
			// \p{N}{1,maxDigits}
			if fl&fNumber != 0 {
				n := 0
				for pos < end && f.fl[pos]&fNumber != 0 {
					pos++
					if n++; n == maxDigits {
						tok(pos)
						n = 0
					}
				}
				tok(pos)
				continue
			}
			// ' ?[^\s\p{L}\p{N}]+[\r\n]*'
			look := pos
			if cp == ' ' {
				look = pos + 1
			}
			if look >= end || f.fl[look]&(fSpace|fLetter|fNumber) == 0 {
				pos = look
				for pos < end && f.fl[pos]&(fSpace|fLetter|fNumber) == 0 {
					pos++
				}
				for isNL(pos) {
					pos++
				}
				tok(pos)
				continue
			}
			nws, lastNL := 0, -1
			for pos+nws < end && f.fl[pos+nws]&fSpace != 0 {
				if isNL(pos + nws) {
					lastNL = pos + nws + 1
				}
				nws++
			}
			switch {
			case lastNL >= 0: // \s*[\r\n]+
				pos = lastNL
			case nws > 1 && pos+nws < end: // \s+(?!\S)
				pos += nws - 1
			case nws > 0: // \s+
				pos += nws
			default:
				pos++
			}
			tok(pos)
		}
	})
}
