package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/llama/bpe"
)

const generateUsage = `Usage: emily-repl generate [flags] PROMPT

Prints PROMPT's continuation as it is generated (greedy unless
--temperature is set). PROMPT is the rest of the command line; without
one, or with "-", it is read from stdin. --chat wraps it in the model's
chat template as a user message. Ctrl-C stops the generation.

Flags:
`

// runGenerate is `emily-repl generate`.
func runGenerate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("emily-repl generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	g := addGenFlags(fs, 256)
	asChat := fs.Bool("chat", false, "wrap PROMPT in the model's chat template (a user turn, then the assistant's)")
	fs.Usage = func() {
		io.WriteString(stderr, generateUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "emily-repl generate:", err)
		return 1
	}
	prompt := strings.Join(fs.Args(), " ")
	if fs.NArg() == 0 || prompt == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return fail(err)
		}
		prompt = strings.TrimSuffix(string(b), "\n")
	}
	if prompt == "" {
		fmt.Fprintln(stderr, "emily-repl generate: no prompt (fix: emily-repl generate \"Once upon a time\", or pipe it on stdin)")
		return 2
	}
	settings, lane, m, tok, err := g.load()
	if err != nil {
		return fail(err)
	}
	var ids []int
	if *asChat {
		var msgs []chatMessage
		if g.system != "" {
			msgs = append(msgs, chatMessage{Role: "system", Content: g.system})
		}
		msgs = append(msgs, chatMessage{Role: "user", Content: prompt})
		if ids, err = renderChat(m, tok, msgs); err != nil {
			return fail(err)
		}
	} else {
		ids = tok.Encode(prompt, true, false)
	}
	// Ctrl-C stops the generation (and what came so far stays printed).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := newStreamer(stdout)
	start := time.Now()
	res, err := generate(ctx, m, ids, g, settings, lane, s)
	if s.text.Len() > 0 && !strings.HasSuffix(s.text.String(), "\n") {
		fmt.Fprintln(stdout)
	}
	interrupted := err != nil && ctx.Err() != nil
	if err != nil && !interrupted {
		return fail(err)
	}
	if g.stats {
		if interrupted {
			res.Reason = "interrupted"
		}
		fmt.Fprintln(stderr, statsLine(res, start, s, settings.Seed, settings.Greedy()))
	}
	if interrupted {
		return 130 // as a shell reports a SIGINT
	}
	return 0
}

// runTokenize is `emily-repl tokenize`: one JSON array of ids per line of
// stdin, as llama.cpp's llama-tokenize gives them (the model's BOS where
// its metadata asks for one, control tokens such as <|im_start|> read as
// themselves).
func runTokenize(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("emily-repl tokenize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "`PATH` of the GGUF file (default: $EMILY_LLM, else .deps/llm.gguf, which make llm fetches)")
	noSpecial := fs.Bool("no-bos", false, "add no BOS/EOS even where the model's metadata asks for them")
	noParse := fs.Bool("no-parse-special", false, "tokenize control-token text such as <|im_start|> as plain text")
	fs.Usage = func() {
		io.WriteString(stderr, "Usage: emily-repl tokenize [flags] < LINES\n\nPrints one JSON array of token ids per line of stdin.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "emily-repl tokenize: unexpected argument %q (fix: the text comes on stdin, one line each)\n", fs.Arg(0))
		return 2
	}
	if *model == "" {
		*model = defaultModel()
	}
	tok, err := loadTokenizer(*model)
	if err != nil {
		fmt.Fprintln(stderr, "emily-repl tokenize:", err)
		return 1
	}
	in := bufio.NewReader(stdin)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	for {
		line, err := in.ReadString('\n')
		if line != "" || err == nil {
			line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
			b, _ := json.Marshal(tok.Encode(line, !*noSpecial, !*noParse))
			out.Write(b)
			out.WriteByte('\n')
			out.Flush() // a line at a time, for pipes that wait for the answer
		}
		if err == io.EOF {
			return 0
		}
		if err != nil {
			fmt.Fprintln(stderr, "emily-repl tokenize:", err)
			return 1
		}
	}
}

// loadTokenizer reads only what the tokenizer needs: the GGUF metadata
// (the tensors are read too, by MLX, but not bound into a model).
func loadTokenizer(path string) (tok *bpe.Tokenizer, err error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w (fix: run `make llm`, or pass --model or set EMILY_LLM to a GGUF file)", err)
	}
	var meta map[string]any
	if err := emily.Try(func() { _, meta = emily.LoadGGUF(path) }); err != nil {
		return nil, err
	}
	return bpe.FromGGUF(meta)
}
