package main

// Shared by the text-generation commands (generate, tokenize, chat): the
// model path, the sampling flags, and the streamer that turns token ids
// into text on the terminal.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/emily-go/emily/models/llama"
	"github.com/emily-go/emily/models/llama/bpe"
	"github.com/emily-go/emily/models/llama/chat"
	"github.com/emily-go/emily/models/sample"
)

// defaultModel is the GGUF the commands use without --model: $EMILY_LLM,
// else .deps/llm.gguf (`make llm`) in the working directory or its
// nearest parent that has one (llama.DefaultPath), else the one of the
// checkout this binary sits in (bin/emily-repl → ../.deps/llm.gguf; the
// binary as started, or the file it links to), so that an installed or
// linked binary finds it from any directory.
func defaultModel() string {
	p := llama.DefaultPath()
	if _, err := os.Stat(p); err == nil || os.Getenv("EMILY_LLM") != "" {
		return p
	}
	var bins []string
	if strings.ContainsRune(os.Args[0], os.PathSeparator) {
		bins = append(bins, os.Args[0])
	}
	if exe, err := os.Executable(); err == nil {
		bins = append(bins, exe)
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			bins = append(bins, real)
		}
	}
	for _, b := range bins {
		q := filepath.Join(filepath.Dir(filepath.Dir(b)), ".deps", "llm.gguf")
		if _, err := os.Stat(q); err == nil {
			return q
		}
	}
	return p
}

// stringList is a repeatable string flag (--stop A --stop B).
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// genFlags are the flags generate and chat share.
type genFlags struct {
	fs                          *flag.FlagSet
	model                       string
	maxTokens                   int
	temperature, topP, minP     float64
	topK                        int
	seed                        uint64
	repeat, presence, frequency float64
	stops                       stringList
	lane, loop                  string
	stats                       bool
	system                      string
}

func addGenFlags(fs *flag.FlagSet, maxTokens int) *genFlags {
	g := &genFlags{fs: fs}
	fs.StringVar(&g.model, "model", "", "`PATH` of the GGUF file (default: $EMILY_LLM, else .deps/llm.gguf, which make llm fetches)")
	fs.IntVar(&g.maxTokens, "max-tokens", maxTokens, "most tokens to generate (0: until the end of generation or the context is full)")
	fs.Float64Var(&g.temperature, "temperature", 0, "sampling temperature; 0 is greedy (the most likely token every time)")
	fs.Float64Var(&g.topP, "top-p", 0, "nucleus sampling: keep the most likely tokens whose probability adds up to P (0 or 1: off)")
	fs.IntVar(&g.topK, "top-k", 0, "keep the K most likely tokens (0: off)")
	fs.Float64Var(&g.minP, "min-p", 0, "keep the tokens at least P times as likely as the most likely one (0: off)")
	fs.Uint64Var(&g.seed, "seed", 0, "random seed, to reproduce a sampled run (default: a random one, shown by --stats)")
	fs.Float64Var(&g.repeat, "repeat-penalty", 0, "divide the positive logits of tokens already seen by this, multiply the negative ones (1 or 0: off)")
	fs.Float64Var(&g.presence, "presence-penalty", 0, "subtract this from the logits of tokens already seen (OpenAI's presence_penalty)")
	fs.Float64Var(&g.frequency, "frequency-penalty", 0, "subtract this once per time a token was seen (OpenAI's frequency_penalty)")
	fs.Var(&g.stops, "stop", "stop before this text (repeatable); it is not printed")
	fs.StringVar(&g.lane, "lane", "native", "jit lane of the decode step: native, fuse or eval")
	fs.StringVar(&g.loop, "loop", "go", "decode loop: go (one pipelined step a token) or while (a traced While, 16 steps a call)")
	fs.BoolVar(&g.stats, "stats", false, "print the time to first token, tok/s and the seed on stderr")
	fs.StringVar(&g.system, "system", "", "system message of the chat")
	return g
}

// settings returns the sampling settings, with a random seed when none
// was given (reported by --stats, so a run can be repeated).
func (g *genFlags) settings() sample.Settings {
	seeded := false
	g.fs.Visit(func(f *flag.Flag) { seeded = seeded || f.Name == "seed" })
	if !seeded {
		g.seed = rand.Uint64() >> 1 // math/rand/v2 is seeded randomly; below 2^63, easy to retype
	}
	return sample.Settings{
		Temperature: g.temperature, TopK: g.topK, TopP: g.topP, MinP: g.minP,
		RepetitionPenalty: g.repeat, PresencePenalty: g.presence, FrequencyPenalty: g.frequency,
		Seed: g.seed,
	}
}

func (g *genFlags) laneOf() (llama.Lane, error) {
	switch g.lane {
	case "native", "":
		return llama.Native, nil
	case "fuse":
		return llama.Fuse, nil
	case "eval", "evaluator":
		return llama.Evaluator, nil
	}
	return 0, fmt.Errorf("--lane %q: want native, fuse or eval", g.lane)
}

func (g *genFlags) loopOf() (llama.Loop, error) {
	switch g.loop {
	case "go", "":
		return llama.GoLoop, nil
	case "while":
		return llama.WhileLoop, nil
	}
	return 0, fmt.Errorf("--loop %q: want go or while", g.loop)
}

// loadModel loads the GGUF and checks the settings against its vocabulary.
// load checks the sampling settings and the lane, then loads the model
// and checks the settings against its vocabulary: the ranges come first,
// so a mistyped flag costs no model load.
func (g *genFlags) load() (sample.Settings, llama.Lane, *llama.Model, *bpe.Tokenizer, error) {
	settings := g.settings()
	lane, err := g.laneOf()
	if err != nil {
		return settings, lane, nil, nil, err
	}
	if _, err := g.loopOf(); err != nil {
		return settings, lane, nil, nil, err
	}
	if err := settings.Validate(math.MaxInt32); err != nil {
		return settings, lane, nil, nil, err
	}
	m, tok, err := g.loadModel()
	if err != nil {
		return settings, lane, nil, nil, err
	}
	if _, err := sample.New(settings, m.Config().VocabSize); err != nil {
		return settings, lane, nil, nil, err
	}
	return settings, lane, m, tok, nil
}

func (g *genFlags) loadModel() (*llama.Model, *bpe.Tokenizer, error) {
	if g.model == "" {
		g.model = defaultModel()
	}
	m, err := llama.Load(g.model)
	if err != nil {
		return nil, nil, err
	}
	tok := m.Tokenizer()
	if tok == nil {
		return nil, nil, fmt.Errorf("%s has no tokenizer in its metadata (fix: a GGUF converted with its tokenizer)", g.model)
	}
	return m, tok, nil
}

// streamer writes generated tokens' text as it comes (llama's Token.Text:
// whole UTF-8 characters, nothing of a stop string, "" for the end of a
// turn) and notes when the first token came, for --stats.
type streamer struct {
	w     io.Writer
	text  strings.Builder // what was written
	first time.Time       // when the first token came
	n     int             // tokens seen
}

func newStreamer(w io.Writer) *streamer { return &streamer{w: w} }

func (s *streamer) token(t llama.Token) error {
	if s.n == 0 {
		s.first = time.Now()
	}
	s.n++
	if t.Text != "" {
		s.text.WriteString(t.Text)
		io.WriteString(s.w, t.Text) // an *os.File is unbuffered: the text shows now
	}
	return nil
}

// statsLine is --stats's report of one generation.
func statsLine(res llama.Result, start time.Time, s *streamer, seed uint64, greedy bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "prompt %d tokens", res.PromptTokens)
	if s.n > 0 {
		fmt.Fprintf(&b, ", first token after %s", ms(s.first.Sub(start)))
		if s.n > 1 {
			d := time.Since(s.first)
			fmt.Fprintf(&b, "; %d tokens in %s, %.1f tok/s", s.n, ms(d+s.first.Sub(start)), float64(s.n-1)/d.Seconds())
		}
	}
	reason := res.Reason
	if reason == "stop" {
		reason = "stop string"
	}
	fmt.Fprintf(&b, "; stopped: %s", reason)
	if !greedy {
		fmt.Fprintf(&b, "; seed %d", seed)
	}
	return b.String()
}

func ms(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

type chatMessage = chat.Message

// generate runs one generation through m, streaming into s. A panic in
// the model is returned as an error: the chat goes on, and generate
// prints a message, not a Go stack.
func generate(ctx context.Context, m *llama.Model, prompt []int, g *genFlags, st sample.Settings, lane llama.Lane, s *streamer) (res llama.Result, err error) {
	loop, _ := g.loopOf() // load checked it
	o := llama.Options{MaxTokens: g.maxTokens, Sampling: st, Stop: g.stops, Lane: lane, Loop: loop}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("llama.Generate failed: %v", r)
		}
	}()
	return m.Generate(ctx, prompt, o, s.token)
}

// renderChat renders msgs with the model's chat template (and the
// assistant's turn opened) and tokenizes the prompt as Hugging Face's
// apply_chat_template(tokenize=True) does: control tokens read as
// themselves, no BOS added (the template writes one where it wants it).
func renderChat(m *llama.Model, tok *bpe.Tokenizer, msgs []chatMessage) ([]int, error) {
	t := m.Template()
	if t == nil {
		return nil, fmt.Errorf("the GGUF has no chat template (fix: leave out --chat, or use a chat model's GGUF)")
	}
	text, err := t.Render(msgs, true)
	if err != nil {
		return nil, err
	}
	return tok.Encode(text, false, true), nil
}
