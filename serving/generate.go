package serving

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/emily-go/emily/models/sample/constrain"
)

// Generator is a text-generation model as the HTTP layer needs it; the
// adapter of models/llama is serving/llamaserve.
type Generator interface {
	// ContextLength is the most tokens of prompt plus completion.
	ContextLength() int
	// VocabSize bounds logit_bias's token ids.
	VocabSize() int
	// Encode tokenizes a completion prompt as the model expects it
	// (special tokens such as BOS added).
	Encode(text string) []int
	// EncodeChat renders messages with the model's chat template, the
	// assistant's turn opened, and tokenizes the result.
	EncodeChat(msgs []Message) ([]int, error)
	// Decode is the text of token ids (for echo and logprobs' tokens).
	Decode(ids []int) string
	// Generate continues prompt, calling emit with each token as it is
	// made; it stops when ctx ends (within one step) or emit fails.
	Generate(ctx context.Context, prompt []int, o GenerateOptions, emit func(Token) error) (GenerateResult, error)
}

// BatchGenerator is a Generator whose Generate calls run together
// (continuous batching, as llamaserve's over a llama.Batcher): the
// server's scheduler runs up to MaxConcurrent of them at once, and a
// generator that is not one runs one at a time.
type BatchGenerator interface {
	Generator
	MaxConcurrent() int
}

// ChoicesGenerator is a BatchGenerator that runs several generations
// together from one call: the server hands it every choice of a request
// (each prompt n times, each choice with its own seed), so they join the
// decode batch at one step boundary as that many rows, and the choices of
// one prompt share its prefill (llamaserve over llama.Batcher.GenerateN).
type ChoicesGenerator interface {
	BatchGenerator
	// GenerateChoices runs reqs together; emit(i, t) gets choice i's
	// tokens and done(i, res, err) its end, on the caller's goroutine, in
	// order for each choice. An error from emit stops them all. It
	// returns the first error.
	GenerateChoices(ctx context.Context, reqs []ChoiceRequest, emit func(i int, t Token) error, done func(i int, res GenerateResult, err error)) error
}

// ChoiceRequest is one choice of a request: its prompt and settings.
type ChoiceRequest struct {
	Prompt  []int
	Options GenerateOptions
}

// Message is one chat message.
type Message struct{ Role, Content string }

// GenerateOptions are one generation's settings, from the request.
type GenerateOptions struct {
	MaxTokens                  int // > 0
	Temperature, TopP, MinP    float64
	TopK                       int
	RepetitionPenalty          float64 // 0 or 1: off
	PresencePenalty, FreqPenal float64
	LogitBias                  map[int]float64
	Seed                       uint64
	Stop                       []string
	// TopLogprobs > 0 asks for that many alternatives per token.
	TopLogprobs int
	// Grammar, from response_format, constrains the output (nil: text):
	// the Generator masks each step with a constrain.Matcher of it.
	Grammar *constrain.Grammar
}

// Token is one generated token: Text is what the client sees (whole
// UTF-8 characters, nothing of a stop string), Logprob its log
// probability under the model, Top the alternatives asked for.
type Token struct {
	ID      int
	Text    string
	Logprob float64
	Top     []TokenLogprob
}

// TokenLogprob is one alternative token.
type TokenLogprob struct {
	ID      int
	Text    string
	Logprob float64
}

// GenerateResult is how a generation ended: FinishReason "stop" (an
// end-of-generation token or a stop string) or "length" (max_tokens or
// the context).
type GenerateResult struct {
	FinishReason string
	Tokens       int
	// TimeToFirstToken and Decode feed the metrics (0: unknown).
	TimeToFirstToken, Decode time.Duration
}

// genRequest is a validated chat or completion request.
type genRequest struct {
	chat      bool
	model     string
	prompts   [][]int  // one per prompt (completions take several)
	texts     []string // the prompts' text, for echo
	echo      bool
	n         int
	opts      GenerateOptions
	logprobs  bool // chat: logprobs: true; completions: logprobs set
	stream    bool
	usage     bool // stream_options.include_usage
	seedGiven bool
}

// samplingFields reads the fields chat and completions share.
func (s *Server) samplingFields(b *body, g *genRequest) {
	o := &g.opts
	o.Temperature = 1 // OpenAI's default
	b.float("temperature", &o.Temperature, 0, 2)
	b.float("top_p", &o.TopP, 0, 1)
	if o.TopP == 1 {
		o.TopP = 0
	}
	b.int("top_k", &o.TopK, 0, math.MaxInt32)
	b.float("min_p", &o.MinP, 0, 0.999999)
	if b.float("repetition_penalty", &o.RepetitionPenalty, 0, 100) && o.RepetitionPenalty == 0 {
		b.fail(BadRequest("repetition_penalty", "repetition_penalty must be positive (1 is off)"))
	}
	b.float("presence_penalty", &o.PresencePenalty, -2, 2)
	b.float("frequency_penalty", &o.FreqPenal, -2, 2)
	var bias map[string]float64
	if b.decode("logit_bias", &bias, `an object of token ids to numbers, e.g. {"50256": -100}`) {
		o.LogitBias = map[int]float64{}
		vocab := s.o.Generator.VocabSize()
		for k, v := range bias {
			id, err := strconv.Atoi(k)
			switch {
			case err != nil || id < 0 || id >= vocab:
				b.fail(BadRequest("logit_bias", "logit_bias key %q is not a token id in [0, %d)", k, vocab))
			case v < -100 || v > 100:
				b.fail(BadRequest("logit_bias", "logit_bias[%q] = %v is out of range: it must be between -100 and 100", k, v))
			}
			o.LogitBias[id] = v
		}
	}
	var seed int
	if b.int("seed", &seed, math.MinInt64, math.MaxInt64) {
		g.seedGiven, o.Seed = true, uint64(seed)
	}
	if raw := b.raw("stop"); raw != nil {
		var one string
		if json.Unmarshal(raw, &one) == nil {
			o.Stop = []string{one}
		} else if err := json.Unmarshal(raw, &o.Stop); err != nil {
			b.fail(BadRequest("stop", "stop must be a string or a list of up to 4 strings, not %s", clip(raw)))
		} else if len(o.Stop) > 4 {
			b.fail(BadRequest("stop", "stop has %d strings; the limit is 4", len(o.Stop)))
		}
		for _, st := range o.Stop {
			if st == "" {
				b.fail(BadRequest("stop", "stop strings must not be empty"))
			}
		}
	}
	g.n = 1
	b.int("n", &g.n, 1, s.o.MaxN)
	b.bool("stream", &g.stream)
	var so struct {
		IncludeUsage *bool `json:"include_usage"`
	}
	if raw := b.raw("stream_options"); raw != nil {
		dec := json.NewDecoder(bytesReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&so); err != nil {
			b.fail(BadRequest("stream_options", `stream_options must be {"include_usage": true|false}, not %s`, clip(raw)))
		} else if !g.stream {
			b.fail(BadRequest("stream_options", "stream_options is only allowed with stream: true"))
		}
		g.usage = so.IncludeUsage != nil && *so.IncludeUsage
	}
	b.ignore("user", "metadata", "store", "service_tier")
}

// checkLength refuses, never truncates, a prompt that does not fit the
// context with the completion asked for.
func (s *Server) checkLength(g *genRequest, param string, maxTokens int, maxGiven bool, maxParam string) *APIError {
	ctxLen := s.o.Generator.ContextLength()
	for _, p := range g.prompts {
		if len(p) == 0 {
			return BadRequest(param, "%s is empty: send some text", param)
		}
		if len(p) >= ctxLen {
			return &APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: param, Code: "context_length_exceeded",
				Message: fmt.Sprintf("this model's maximum context length is %d tokens, and your %s are %d tokens (leaving no room for a completion); shorten them — nothing is truncated", ctxLen, param, len(p))}
		}
		if maxGiven && len(p)+maxTokens > ctxLen {
			return &APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: maxParam, Code: "context_length_exceeded",
				Message: fmt.Sprintf("this model's maximum context length is %d tokens; you asked for %d (%d in the %s, %d in the completion); lower %s to at most %d or shorten the %s",
					ctxLen, len(p)+maxTokens, len(p), param, maxTokens, maxParam, ctxLen-len(p), param)}
		}
	}
	g.opts.MaxTokens = maxTokens
	if !maxGiven {
		g.opts.MaxTokens = 0 // the adapter runs to the context's end
	}
	return nil
}

func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	b, e := readBody(w, r)
	if e != nil {
		writeError(w, e)
		return
	}
	g := &genRequest{chat: true, model: b.model(s.o.Model)}
	var msgs []Message
	var raw []map[string]json.RawMessage
	if !b.decode("messages", &raw, "a list of messages") {
		if b.err == nil {
			b.fail(BadRequest("messages", `messages is required: a list such as [{"role": "user", "content": "Hello"}]`))
		}
	} else if len(raw) == 0 {
		b.fail(BadRequest("messages", "messages is empty: send at least one message"))
	}
	for i, m := range raw {
		msg, err := parseMessage(i, m)
		if err != nil {
			b.fail(err)
			break
		}
		msgs = append(msgs, msg)
	}
	s.samplingFields(b, g)
	var maxTokens int
	maxGiven := b.int("max_tokens", &maxTokens, 1, math.MaxInt32)
	maxParam := "max_tokens"
	if b.int("max_completion_tokens", &maxTokens, 1, math.MaxInt32) {
		maxGiven, maxParam = true, "max_completion_tokens"
	}
	b.bool("logprobs", &g.logprobs)
	if b.int("top_logprobs", &g.opts.TopLogprobs, 0, 20) && !g.logprobs && g.opts.TopLogprobs > 0 {
		b.fail(BadRequest("top_logprobs", "top_logprobs needs logprobs: true"))
	}
	s.responseFormat(b, g)
	for _, f := range []string{"tools", "tool_choice", "functions", "function_call", "audio", "modalities", "prediction", "web_search_options"} {
		b.unsupported(f, "this server generates plain text")
	}
	b.ignore("parallel_tool_calls", "reasoning_effort")
	if e := b.done(); e != nil {
		writeError(w, e)
		return
	}
	ids, err := s.o.Generator.EncodeChat(msgs)
	if err != nil {
		writeError(w, BadRequest("messages", "the chat template failed on these messages: %v", err))
		return
	}
	g.prompts = [][]int{ids}
	if e := s.checkLength(g, "messages", maxTokens, maxGiven, maxParam); e != nil {
		writeError(w, e)
		return
	}
	s.serveGeneration(w, r, g)
}

// parseMessage reads messages[i]: a role and a content string (or a list
// of text parts).
func parseMessage(i int, m map[string]json.RawMessage) (Message, *APIError) {
	field := fmt.Sprintf("messages[%d]", i)
	var msg Message
	if err := json.Unmarshal(m["role"], &msg.Role); err != nil || msg.Role == "" {
		return msg, BadRequest(field+".role", `%s.role is required: "system", "user" or "assistant"`, field)
	}
	switch msg.Role {
	case "developer":
		msg.Role = "system" // OpenAI's newer name for the system role
	case "system", "user", "assistant":
	case "tool", "function":
		return msg, BadRequest(field+".role", "%s.role %q is not supported: this server has no tool calling", field, msg.Role)
	default:
		return msg, BadRequest(field+".role", `%s.role %q is not one of "system", "user", "assistant"`, field, msg.Role)
	}
	c, ok := m["content"]
	if !ok || string(c) == "null" {
		return msg, BadRequest(field+".content", "%s.content is required", field)
	}
	if json.Unmarshal(c, &msg.Content) != nil {
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(c, &parts); err != nil {
			return msg, BadRequest(field+".content", "%s.content must be a string or a list of text parts, not %s", field, clip(c))
		}
		for k, p := range parts {
			if p.Type != "text" {
				return msg, BadRequest(fmt.Sprintf("%s.content[%d].type", field, k), "content parts of type %q are not supported: this model reads text only", p.Type)
			}
			msg.Content += p.Text
		}
	}
	for k := range m {
		switch k {
		case "role", "content", "name":
		case "tool_calls", "tool_call_id", "function_call", "audio":
			return msg, BadRequest(field+"."+k, "%s.%s is not supported: this server has no tool calling", field, k)
		default:
			return msg, BadRequest(field+"."+k, "unrecognized message field %q", k)
		}
	}
	return msg, nil
}

func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	b, e := readBody(w, r)
	if e != nil {
		writeError(w, e)
		return
	}
	g := &genRequest{model: b.model(s.o.Model)}
	if raw := b.raw("prompt"); raw == nil {
		b.fail(BadRequest("prompt", "prompt is required: a string, a list of strings, or token ids"))
	} else if err := s.parsePrompt(raw, g); err != nil {
		b.fail(err)
	}
	s.samplingFields(b, g)
	var maxTokens int
	maxGiven := b.int("max_tokens", &maxTokens, 1, math.MaxInt32)
	var lp int
	if b.int("logprobs", &lp, 0, 20) {
		g.logprobs, g.opts.TopLogprobs = true, lp
	}
	b.bool("echo", &g.echo)
	var best int
	if b.int("best_of", &best, 1, s.o.MaxN) && best != g.n {
		b.fail(BadRequest("best_of", "best_of other than n is not supported (this server does not rank candidates)"))
	}
	var suffix string
	if b.str("suffix", &suffix) && suffix != "" {
		b.fail(BadRequest("suffix", "suffix (insertion) is not supported by this model"))
	}
	s.responseFormat(b, g) // not OpenAI's, but llama-server and vLLM take it here too
	if e := b.done(); e != nil {
		writeError(w, e)
		return
	}
	if e := s.checkLength(g, "prompt", maxTokens, maxGiven, "max_tokens"); e != nil {
		writeError(w, e)
		return
	}
	if !maxGiven {
		g.opts.MaxTokens = 16 // OpenAI's default for completions (fewer if the context ends first)
	}
	s.serveGeneration(w, r, g)
}

// parsePrompt reads a completion's prompt: a string, a list of strings,
// a list of token ids, or a list of such lists.
func (s *Server) parsePrompt(raw json.RawMessage, g *genRequest) *APIError {
	var one string
	var many []string
	var ids []int
	var idss [][]int
	vocab := s.o.Generator.VocabSize()
	checkIDs := func(p []int) *APIError {
		for _, id := range p {
			if id < 0 || id >= vocab {
				return BadRequest("prompt", "token id %d in prompt is outside the vocabulary [0, %d)", id, vocab)
			}
		}
		return nil
	}
	switch {
	case json.Unmarshal(raw, &one) == nil:
		many = []string{one}
	case json.Unmarshal(raw, &many) == nil:
	case json.Unmarshal(raw, &ids) == nil:
		idss = [][]int{ids}
	case json.Unmarshal(raw, &idss) == nil:
	default:
		return BadRequest("prompt", "prompt must be a string, a list of strings, or token ids, not %s", clip(raw))
	}
	for _, t := range many {
		g.prompts = append(g.prompts, s.o.Generator.Encode(t))
		g.texts = append(g.texts, t)
	}
	for _, p := range idss {
		if e := checkIDs(p); e != nil {
			return e
		}
		g.prompts = append(g.prompts, p)
		g.texts = append(g.texts, s.o.Generator.Decode(p))
	}
	if len(g.prompts) == 0 {
		return BadRequest("prompt", "prompt is an empty list: send at least one prompt")
	}
	if len(g.prompts) > 16 {
		return BadRequest("prompt", "prompt has %d prompts; the limit is 16 a request", len(g.prompts))
	}
	return nil
}

// seed gives each choice its seed: the request's seed plus the choice's
// index, or a random one. Choice k of a request with seed s draws with
// seed s+k, as vLLM seeds its n child requests: each choice is
// reproducible on its own (choice 0 is the request with n = 1), the
// choices differ, and they run as separate rows of the batch, each with
// its own key chain, so batching never changes what a seed draws.
func (g *genRequest) seed(choice int) uint64 {
	if g.seedGiven {
		return g.opts.Seed + uint64(choice)
	}
	return rand.Uint64()
}
