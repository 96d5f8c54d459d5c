package llama

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/sample"
)

// Loop picks what drives the decode loop.
type Loop int

const (
	// GoLoop (the default) is a Go loop that issues one jitted step per
	// token, pipelined: step n+1 is queued before token n is read.
	GoLoop Loop = iota
	// WhileLoop runs the decode as a traced emily.While: one call runs up
	// to Options.Block steps inside the program (the condition stops it at
	// an end-of-generation or stop token, or the block's length), then the
	// host reads the block's tokens and emits them. In the fuse lane the
	// loop's body is fused under mlx::core::compile (the seed's design);
	// cancellation, emit's errors and stop strings take effect within one
	// block.
	WhileLoop
)

func (l Loop) String() string { return [...]string{"go", "while"}[l] }

// defaultBlock is Options.Block's default: long enough that a call's
// fixed cost is spread over many tokens, short enough that a cancel or a
// stop string wastes little.
const defaultBlock = 16

// loopSpec is a spec's decode loop of block steps a call.
type loopSpec struct {
	spec
	block int
}

func (ls loopSpec) id() string { return fmt.Sprintf("%s while%d", ls.spec.id(), ls.block) }

// blockOut is one block's results: the steps it ran (n), the last token
// (1, 1), the tokens (block) int32 and their logprobs (block) float32 of
// which the first n are real, and the top-n (block, topN) when asked for.
type blockOut struct {
	n, last, ids, logprobs, topIDs, topLogprobs *emily.Tensor
}

// Loop returns the jitted decode loop (WhileLoop) for o's lane, sampler
// stages, logprobs and Block (made on first use), for its Stats and
// Programs: a function as loop documents, one program per cache
// capacity.
func (m *Model) Loop(o Options) (*emily.Jitted, error) {
	if o.Constraint != nil {
		return nil, fmt.Errorf("llama.Loop: a Constraint decodes token by token (each mask needs the token before it), never in the While loop")
	}
	sp, err := m.spec(o)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.loop(loopSpec{spec: sp, block: blockOf(o)})
}

func blockOf(o Options) int {
	if o.Block > 0 {
		return o.Block
	}
	return defaultBlock
}

// loop returns the jitted decode block for ls (made on first use): a
// function (token (1, 1), pos, limit, stop (vocab) float32, [key],
// [counts], [knobs], [bias], kv0, kv1, …) → (n, last (1, 1), ids (block),
// logprobs (block), [top ids (block, topN), top logprobs], [key'],
// [counts'], kv0', kv1', …). It runs steps from token at pos while fewer
// than limit have run and the last token picked is not marked in stop,
// each step the jitted step's body: the model, the sampler, the key
// split and the counts, one While iteration.
func (m *Model) loop(ls loopSpec) (*emily.Jitted, error) {
	id := ls.id()
	if j, ok := m.steps[id]; ok {
		return j, nil
	}
	sp := ls.spec
	n := m.cfg.Layers
	inN := 4 + sp.nIn() + n
	outN := 4 + n
	if sp.topN > 0 {
		outN += 2
	}
	if sp.key {
		outN++
	}
	if sp.counts {
		outN++
	}
	if inN+outN > 128 {
		return nil, fmt.Errorf("llama: a decode loop of %d layers with these options has %d parameters and results, over Go's 128 for a function type (fix: the Go loop, fewer options, or a model of at most %d layers)",
			n, inN+outN, (128-(inN+outN-2*n))/2)
	}
	k := ls.block
	fn := tensorFunc(inN, outN, func(ts []*emily.Tensor) []*emily.Tensor {
		tok, pos, limit, stop := ts[0], ts[1], ts[2], ts[3]
		in, kv := sp.take(ts[4:])
		// The state: step count, position, stopped, token, the block's
		// outputs, [top-n outputs], [key], [counts], the caches.
		state := []*emily.Tensor{emily.ScalarOf(0, emily.Int32), pos, emily.ScalarOf(false, emily.Bool), tok,
			emily.Zeros(k).Astype(emily.Int32), emily.Zeros(k)}
		if sp.topN > 0 {
			state = append(state, emily.Zeros(k, sp.topN).Astype(emily.Int32), emily.Zeros(k, sp.topN))
		}
		if sp.key {
			state = append(state, in.key)
		}
		if sp.counts {
			state = append(state, in.counts)
		}
		fixed := len(state)
		state = append(state, kv...)
		zero := emily.ScalarOf(0, emily.Int32)
		out := emily.While(
			func(s []*emily.Tensor) *emily.Tensor {
				return emily.LogicalAnd(emily.Less(s[0], limit), emily.LogicalNot(s[2]))
			},
			func(s []*emily.Tensor) []*emily.Tensor {
				i, p := s[0], s[1]
				cur := in
				at := 6
				var topI, topL *emily.Tensor
				if sp.topN > 0 {
					topI, topL, at = s[at], s[at+1], at+2
				}
				if sp.key {
					cur.key, at = s[at], at+1
				}
				if sp.counts {
					cur.counts = s[at]
				}
				logits, kv := m.step(s[3], p, zero, s[fixed:])
				ids, lp, next := sp.pick(logits, cur)
				row := emily.Reshape(i, 1)
				res := []*emily.Tensor{emily.Add(i, emily.ScalarOf(1, emily.Int32)), emily.Add(p, emily.ScalarOf(1, emily.Int32)),
					emily.Reshape(emily.Greater(emily.Take(stop, ids, 0), 0), []int{}...), emily.Reshape(ids, 1, 1),
					emily.DynamicSetSlice(s[4], ids, row, []int{0}), emily.DynamicSetSlice(s[5], lp, row, []int{0})}
				if sp.topN > 0 {
					ti, tl := sample.TopLogprobs(logits, sp.topN)
					res = append(res, emily.DynamicSetSlice(topI, ti, row, []int{0}), emily.DynamicSetSlice(topL, tl, row, []int{0}))
				}
				if sp.key {
					res = append(res, next.key)
				}
				if sp.counts {
					res = append(res, next.counts)
				}
				return append(res, kv...)
			},
			state...)
		res := []*emily.Tensor{out[0], out[3], out[4], out[5]}
		if sp.topN > 0 {
			res = append(res, out[6], out[7])
		}
		return append(res, out[fixed-b2i(sp.key)-b2i(sp.counts):]...)
	})
	// Not WithAsync: the loop evaluates each iteration as it runs (its
	// condition reads the token), so a call returns when the block is done.
	j, err := emily.CompileNamed(fmt.Sprintf("llama.loop[%s]", id), fn, append(sp.lane.options(), emily.WithCacheSize(64))...)
	if err != nil {
		panic(err) // the signature is all *Tensor and the options are fixed: cannot fail
	}
	m.keep(id, j)
	return j, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runBlock is one call of the decode loop from token at pos: at most
// limit steps (the cache already holds pos+limit positions).
func (s *session) runBlock(j *emily.Jitted, token *emily.Tensor, pos, limit int, stop *emily.Tensor) (blockOut, error) {
	var out []*emily.Tensor
	err := emily.Try(func() {
		p, l := emily.ScalarOf(pos, emily.Int32), emily.ScalarOf(limit, emily.Int32)
		defer free(p, l)
		args := s.sp.args(s.in, []*emily.Tensor{token, p, l, stop})
		var err error
		if out, err = j.Call(append(args, s.kv...)...); err != nil {
			panic(err)
		}
	})
	if err != nil {
		return blockOut{}, fmt.Errorf("llama.Generate: decode loop at position %d: %w", pos, err)
	}
	b := blockOut{n: out[0], last: out[1], ids: out[2], logprobs: out[3]}
	rest := out[4:]
	if s.sp.topN > 0 {
		b.topIDs, b.topLogprobs, rest = rest[0], rest[1], rest[2:]
	}
	if s.sp.key {
		replace(&s.in.key, rest[0])
		rest = rest[1:]
	}
	if s.sp.counts {
		replace(&s.in.counts, rest[0])
		rest = rest[1:]
	}
	for i, t := range rest {
		replace(&s.kv[i], t)
	}
	return b, nil
}

// read copies the block's n tokens to the host.
func (b blockOut) read(m *Model) []Token {
	n := int(b.n.ToInt32s()[0])
	ids, lps := b.ids.ToInt32s(), b.logprobs.ToFloat32s()
	var tids []int32
	var tlps []float32
	if b.topIDs != nil {
		tids, tlps = b.topIDs.ToInt32s(), b.topLogprobs.ToFloat32s()
	}
	toks := make([]Token, n)
	for i := range toks {
		toks[i] = Token{ID: int(ids[i]), Logprob: float64(lps[i])}
		if tids != nil {
			w := len(tids) / len(ids)
			toks[i].Top = topOf(m.tok, tids[i*w:(i+1)*w], tlps[i*w:(i+1)*w])
		}
	}
	return toks
}

// stopMask marks (1) the tokens that end the generation inside the loop:
// the end-of-generation ids unless IgnoreEOG, and StopTokens.
func (m *Model) stopMask(o Options) *emily.Tensor {
	mask := make([]float32, m.cfg.VocabSize)
	mark := func(ids []int) {
		for _, id := range ids {
			if id >= 0 && id < len(mask) {
				mask[id] = 1
			}
		}
	}
	if !o.IgnoreEOG {
		mark(m.cfg.EOG)
		if m.tok != nil {
			mark(m.tok.EOG())
		}
	}
	mark(o.StopTokens)
	return emily.FromSlice(mask, len(mask))
}

// whileLoop decodes after the first token (first, already accepted) in
// blocks of the traced loop. Each block's cache capacity is the one the
// Go loop would use at its positions (a block never crosses a capacity),
// so the two loops compute the same steps.
func (s *session) whileLoop(ctx context.Context, g *generation, first stepOut, o Options) error {
	ls := loopSpec{spec: s.sp, block: blockOf(o)}
	j, err := s.m.loop(ls)
	if err != nil {
		return err
	}
	stop := s.m.stopMask(o)
	defer stop.Free()
	token := first.next
	defer func() { token.Free() }()
	for {
		if err := ctx.Err(); err != nil {
			g.res.Reason = "cancelled"
			return err
		}
		pos := g.pos()
		s.grow(pos + 1)
		limit := min(ls.block, g.maxTokens-len(g.res.Tokens), s.capacity-pos)
		t0 := time.Now()
		b, err := s.runBlock(j, token, pos, limit, stop)
		g.res.Issue += time.Since(t0)
		if err != nil {
			if errors.Is(err, emily.ErrInterrupted) {
				// emily.Interrupt (Ctrl-C, a kernel interrupt) stopped the
				// block inside its loop.
				g.res.Reason = "cancelled"
			}
			return err
		}
		token.Free()
		token = b.last
		var toks []Token
		t0 = time.Now()
		err = emily.Try(func() { toks = b.read(s.m) })
		g.res.Wait += time.Since(t0)
		free(b.n, b.ids, b.logprobs, b.topIDs, b.topLogprobs)
		if err != nil {
			return err
		}
		if len(toks) == 0 {
			return fmt.Errorf("llama.Generate: the decode loop ran no step at position %d (limit %d)", pos, limit)
		}
		for _, tok := range toks {
			// A cancel stops the stream at the next token, as in the Go
			// loop, even inside a block already computed.
			if err := ctx.Err(); err != nil {
				g.res.Reason = "cancelled"
				return err
			}
			if done, err := g.accept(tok); done || err != nil {
				return err
			}
		}
	}
}
