package serving

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

var requestSeq atomic.Uint64

// choiceOut is one choice as it is generated.
type choiceOut struct {
	text     strings.Builder
	tokens   []Token
	finish   string
	offset   int // completions' text_offset of the next token
	begun    bool
	finished bool
}

// genWork is a generation job's payload: the request, its choices, and
// for a stream the callbacks that write events as the scheduler runs it.
type genWork struct {
	g                        *genRequest
	choices                  []choiceOut
	promptTokens, completion int
	begin                    func(i int) error
	emit                     func(i int, t Token) error
	end                      func(i int) error
}

// runGeneration is the scheduler's work on one job: every choice of every
// prompt, each with its own seed; all at once through a ChoicesGenerator,
// else one after another.
func (s *Server) runGeneration(j *Job) {
	w := j.Payload.(*genWork)
	g := w.g
	for _, p := range g.prompts {
		w.promptTokens += len(p)
	}
	if cg, ok := s.o.Generator.(ChoicesGenerator); ok {
		s.runChoices(j, cg)
		return
	}
	ctx := j.Context()
	for pi, p := range g.prompts {
		for k := range g.n {
			i := pi*g.n + k
			if err := w.beginChoice(i); err != nil {
				j.Finish(nil, err)
				return
			}
			o := g.opts
			o.Seed = g.seed(k)
			start := time.Now()
			res, err := s.o.Generator.Generate(ctx, p, o, func(t Token) error { return w.token(i, t) })
			if err := s.endChoice(ctx, w, i, res, err, time.Since(start)); err != nil {
				j.Finish(nil, err)
				return
			}
		}
	}
	j.Finish(w, nil)
}

// runChoices runs every choice of the job in one GenerateChoices: they
// join the batch together, and a prompt's n choices share its prefill.
func (s *Server) runChoices(j *Job, cg ChoicesGenerator) {
	w := j.Payload.(*genWork)
	g, ctx := w.g, j.Context()
	reqs := make([]ChoiceRequest, 0, len(w.choices))
	for pi, p := range g.prompts {
		for k := range g.n {
			if err := w.beginChoice(pi*g.n + k); err != nil {
				j.Finish(nil, err)
				return
			}
			o := g.opts
			o.Seed = g.seed(k)
			reqs = append(reqs, ChoiceRequest{Prompt: p, Options: o})
		}
	}
	start := time.Now()
	var first error
	err := cg.GenerateChoices(ctx, reqs, w.token, func(i int, res GenerateResult, err error) {
		if err := s.endChoice(ctx, w, i, res, err, time.Since(start)); err != nil && first == nil {
			first = err
		}
	})
	if first == nil {
		first = err
	}
	if first != nil {
		j.Finish(nil, first)
		return
	}
	j.Finish(w, nil)
}

// beginChoice starts choice i: the echoed prompt, the stream's opening.
func (w *genWork) beginChoice(i int) error {
	g, c := w.g, &w.choices[i]
	if g.echo {
		c.text.WriteString(g.texts[i/g.n])
		c.offset = len(g.texts[i/g.n])
	}
	if w.begin != nil {
		return w.begin(i)
	}
	return nil
}

// token takes choice i's next token.
func (w *genWork) token(i int, t Token) error {
	c := &w.choices[i]
	c.tokens = append(c.tokens, t)
	if w.emit != nil {
		if err := w.emit(i, t); err != nil {
			return err
		}
	}
	c.text.WriteString(t.Text)
	c.offset += len(t.Text)
	return nil
}

// endChoice records how choice i ended (metrics, usage, the stream's
// finish event) and returns the error that fails the job, if any.
func (s *Server) endChoice(ctx context.Context, w *genWork, i int, res GenerateResult, err error, took time.Duration) error {
	c := &w.choices[i]
	p := w.g.prompts[i/w.g.n]
	w.completion += len(c.tokens)
	if err != nil {
		reason := "error"
		if ctx.Err() != nil {
			reason = "cancelled"
		}
		s.o.Metrics.generation(reason, len(p), len(c.tokens), 0, took)
		return err
	}
	s.o.Metrics.generation(res.FinishReason, len(p), len(c.tokens), res.TimeToFirstToken, res.Decode)
	c.finish = res.FinishReason
	if w.end != nil {
		return w.end(i)
	}
	return nil
}

// serveGeneration queues g and answers: one JSON reply, or a stream of
// server-sent events ending in "data: [DONE]".
func (s *Server) serveGeneration(w http.ResponseWriter, r *http.Request, g *genRequest) {
	id := fmt.Sprintf("cmpl-%d-%d", s.created, requestSeq.Add(1))
	object := "text_completion"
	if g.chat {
		id, object = "chat"+id, "chat.completion"
	}
	created := time.Now().Unix()
	work := &genWork{g: g, choices: make([]choiceOut, len(g.prompts)*g.n)}
	var ev *sse
	if g.stream {
		ev = &sse{w: w, rc: http.NewResponseController(w), write: s.o.Limits.Write}
		s.streamCallbacks(work, ev, id, created)
	}
	// A job is as many rows of the batch as it has choices.
	j, err := s.gen.Submit(r.Context(), work, len(work.choices))
	if err != nil {
		writeError(w, errorStatus(err))
		return
	}
	_, err = j.Wait()
	if err != nil && (r.Context().Err() != nil || errors.Is(err, errClientGone)) {
		return // the client went away: its generation stopped; nothing to send
	}
	if !g.stream {
		if err != nil {
			writeError(w, errorStatus(err))
			return
		}
		writeJSON(w, http.StatusOK, s.reply(work, id, object, created))
		return
	}
	if err != nil {
		if !ev.started {
			writeError(w, errorStatus(err))
			return
		}
		// Headers are gone: the error travels as an event, as OpenAI's do.
		e := errorStatus(err)
		ev.send(map[string]any{"error": map[string]any{"message": e.Message, "type": e.Type, "param": nil, "code": nil}})
		ev.done()
		return
	}
	if g.usage {
		ev.send(s.chunk(g, id, created, []any{}, work.usage()))
	}
	ev.done()
}

func (w *genWork) usage() map[string]int {
	return map[string]int{"prompt_tokens": w.promptTokens, "completion_tokens": w.completion,
		"total_tokens": w.promptTokens + w.completion}
}

// reply is the whole answer of a request that did not stream.
func (s *Server) reply(work *genWork, id, object string, created int64) map[string]any {
	g := work.g
	choices := make([]any, len(work.choices))
	for i := range work.choices {
		c := &work.choices[i]
		if g.chat {
			var lp any
			if g.logprobs {
				content := make([]any, len(c.tokens))
				for k, t := range c.tokens {
					content[k] = s.chatLogprob(t)
				}
				lp = map[string]any{"content": content, "refusal": nil}
			}
			choices[i] = map[string]any{"index": i, "finish_reason": c.finish, "logprobs": lp,
				"message": map[string]any{"role": "assistant", "content": c.text.String(), "refusal": nil}}
		} else {
			var lp any
			if g.logprobs {
				off := 0
				if g.echo {
					off = len(g.texts[i/g.n])
				}
				lp = s.completionLogprobs(c.tokens, off)
			}
			choices[i] = map[string]any{"index": i, "text": c.text.String(), "finish_reason": c.finish, "logprobs": lp}
		}
	}
	return map[string]any{"id": id, "object": object, "created": created, "model": g.model,
		"choices": choices, "usage": work.usage(), "system_fingerprint": nil}
}

// chunk is one streamed event; with include_usage every chunk carries
// "usage" (null until the last), as OpenAI's do.
func (s *Server) chunk(g *genRequest, id string, created int64, choices []any, usage any) map[string]any {
	object := "text_completion"
	if g.chat {
		object = "chat.completion.chunk"
	}
	c := map[string]any{"id": id, "object": object, "created": created, "model": g.model, "choices": choices, "system_fingerprint": nil}
	if g.usage {
		c["usage"] = usage
	}
	return c
}

// streamCallbacks writes a stream's events as the scheduler generates.
func (s *Server) streamCallbacks(work *genWork, ev *sse, id string, created int64) {
	g := work.g
	send := func(choice map[string]any) error {
		return ev.send(s.chunk(g, id, created, []any{choice}, nil))
	}
	work.begin = func(i int) error {
		if g.chat {
			return send(map[string]any{"index": i, "delta": map[string]any{"role": "assistant", "content": ""}, "logprobs": nil, "finish_reason": nil})
		}
		if g.echo {
			return send(map[string]any{"index": i, "text": g.texts[i/g.n], "logprobs": nil, "finish_reason": nil})
		}
		return ev.start()
	}
	work.emit = func(i int, t Token) error {
		if t.Text == "" && !g.logprobs {
			return nil // a token that shows nothing yet (a partial character, an end token)
		}
		if g.chat {
			var lp any
			if g.logprobs {
				lp = map[string]any{"content": []any{s.chatLogprob(t)}, "refusal": nil}
			}
			return send(map[string]any{"index": i, "delta": map[string]any{"content": t.Text}, "logprobs": lp, "finish_reason": nil})
		}
		var lp any
		if g.logprobs {
			lp = s.completionLogprobs([]Token{t}, work.choices[i].offset)
		}
		return send(map[string]any{"index": i, "text": t.Text, "logprobs": lp, "finish_reason": nil})
	}
	work.end = func(i int) error {
		c := &work.choices[i]
		if g.chat {
			return send(map[string]any{"index": i, "delta": map[string]any{}, "logprobs": nil, "finish_reason": c.finish})
		}
		return send(map[string]any{"index": i, "text": "", "logprobs": nil, "finish_reason": c.finish})
	}
}

func (s *Server) tokenText(id int) string { return s.o.Generator.Decode([]int{id}) }

func byteList(t string) []int {
	b := make([]int, len(t))
	for i := range len(t) {
		b[i] = int(t[i])
	}
	return b
}

// chatLogprob is one entry of a chat choice's logprobs.content.
func (s *Server) chatLogprob(t Token) map[string]any {
	text := s.tokenText(t.ID)
	top := make([]any, len(t.Top))
	for i, a := range t.Top {
		at := s.tokenText(a.ID)
		top[i] = map[string]any{"token": at, "logprob": a.Logprob, "bytes": byteList(at)}
	}
	return map[string]any{"token": text, "logprob": t.Logprob, "bytes": byteList(text), "top_logprobs": top}
}

// completionLogprobs is a completion choice's logprobs (the legacy
// shape): tokens, token_logprobs, top_logprobs and text_offset.
func (s *Server) completionLogprobs(ts []Token, offset int) map[string]any {
	tokens, lps, tops, offs := []string{}, []float64{}, []map[string]float64{}, []int{}
	for _, t := range ts {
		text := s.tokenText(t.ID)
		tokens, lps, offs = append(tokens, text), append(lps, t.Logprob), append(offs, offset)
		top := map[string]float64{}
		for _, a := range t.Top {
			top[s.tokenText(a.ID)] = a.Logprob
		}
		tops = append(tops, top)
		offset += len(t.Text)
	}
	return map[string]any{"tokens": tokens, "token_logprobs": lps, "top_logprobs": tops, "text_offset": offs}
}

// errClientGone is what a stream's write returns once the client has
// gone: the generation stops at its next token.
var errClientGone = errors.New("serving: the client went away")

// sse writes server-sent events. Each event moves the write deadline on
// by the limit, so a long stream is bounded per event, not as a whole.
type sse struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	write   time.Duration
	started bool
	broken  bool
}

func (e *sse) start() error {
	if e.broken {
		return errClientGone
	}
	if !e.started {
		e.started = true
		h := e.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		e.w.WriteHeader(http.StatusOK)
	}
	return nil
}

func (e *sse) raw(data []byte) error {
	if err := e.start(); err != nil {
		return err
	}
	if e.write > 0 {
		e.rc.SetWriteDeadline(time.Now().Add(e.write))
	}
	if _, err := fmt.Fprintf(e.w, "data: %s\n\n", data); err != nil {
		e.broken = true
		return fmt.Errorf("%w: %v", errClientGone, err)
	}
	if err := e.rc.Flush(); err != nil {
		e.broken = true
		return fmt.Errorf("%w: %v", errClientGone, err)
	}
	return nil
}

func (e *sse) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return e.raw(b)
}

func (e *sse) done() { e.raw([]byte("[DONE]")) }
