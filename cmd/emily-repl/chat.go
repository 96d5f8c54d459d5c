package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chzyer/readline"
)

const chatUsage = `Usage: emily-repl chat [flags]

A terminal chat with the model, through its chat template: each reply is
streamed as it is generated, and the whole conversation is the context of
the next one. Ctrl-C stops a reply (what came is kept) or clears the line
being typed; /reset forgets the conversation; Ctrl-D or /exit ends.

Flags:
`

// runChat is `emily-repl chat`.
func runChat(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("emily-repl chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	g := addGenFlags(fs, 512)
	fs.Usage = func() {
		io.WriteString(stderr, chatUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "emily-repl chat:", err)
		return 1
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "emily-repl chat: unexpected argument %q (fix: type the messages at the prompt; `emily-repl generate --chat PROMPT` answers one)\n", fs.Arg(0))
		return 2
	}
	settings, lane, m, tok, err := g.load()
	if err != nil {
		return fail(err)
	}
	cfg := m.Config()
	rl, err := readline.NewEx(&readline.Config{
		Prompt:          "> ",
		InterruptPrompt: "^C",
		EOFPrompt:       "",
		HistoryLimit:    1000, // this chat's messages, for Up; not saved
	})
	if err != nil {
		return fail(err)
	}
	defer rl.Close()
	out := rl.Stdout()
	fmt.Fprintf(out, "Chatting with %s (%d layers, context %d). Ctrl-C stops a reply, /reset forgets, Ctrl-D exits.\n",
		filepath.Base(g.model), cfg.Layers, cfg.ContextLength)

	// SIGINT while a reply streams cancels that reply; at the prompt,
	// readline has the terminal raw and reads Ctrl-C as ErrInterrupt.
	var mu sync.Mutex
	var cancel context.CancelFunc
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGINT)
	defer signal.Stop(sig)
	go func() {
		for range sig {
			mu.Lock()
			if cancel != nil {
				cancel()
			}
			mu.Unlock()
		}
	}()

	var system []chatMessage
	if g.system != "" {
		system = []chatMessage{{Role: "system", Content: g.system}}
	}
	history := append([]chatMessage(nil), system...)
	for turn := 0; ; {
		line, err := rl.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			continue
		case errors.Is(err, io.EOF):
			return 0
		case err != nil:
			return fail(err)
		}
		text := strings.TrimSpace(line)
		switch text {
		case "":
			continue
		case "/exit", "/quit":
			return 0
		case "/reset":
			history = append(history[:0], system...)
			fmt.Fprintln(out, "(conversation forgotten)")
			continue
		}
		history = append(history, chatMessage{Role: "user", Content: text})
		ids, dropped, err := fitContext(history, len(system), g.maxTokens, cfg.ContextLength, func(msgs []chatMessage) ([]int, error) {
			return renderChat(m, tok, msgs)
		})
		if err != nil {
			history = history[:len(history)-1]
			fmt.Fprintln(out, "emily-repl chat:", err)
			continue
		}
		if dropped > 0 {
			history = append(history[:len(system)], history[len(system)+dropped:]...)
			fmt.Fprintf(out, "(the %d oldest messages no longer fit the context and were forgotten)\n", dropped)
		}
		ctx, stop := context.WithCancel(context.Background())
		mu.Lock()
		cancel = stop
		mu.Unlock()
		s := newStreamer(out)
		st := settings
		st.Seed = settings.Seed + uint64(turn) // each reply draws afresh, the chat stays reproducible
		turn++
		start := time.Now()
		res, err := generate(ctx, m, ids, g, st, lane, s)
		mu.Lock()
		cancel = nil
		mu.Unlock()
		interrupted := ctx.Err() != nil
		stop()
		switch {
		case interrupted:
			fmt.Fprintln(out, " [stopped]")
			res.Reason = "interrupted"
		case err != nil:
			fmt.Fprintln(out)
			fmt.Fprintln(out, "emily-repl chat:", err)
		default:
			fmt.Fprintln(out)
		}
		// What was shown is the reply the model remembers, cut short or not.
		history = append(history, chatMessage{Role: "assistant", Content: s.text.String()})
		if g.stats {
			fmt.Fprintln(out, "("+statsLine(res, start, s, st.Seed, st.Greedy())+")")
		}
	}
}

// fitContext renders msgs, dropping the oldest messages after the first
// keep (the system message) a user-assistant pair at a time until the
// prompt and maxTokens fit the context; it returns the prompt's ids and
// how many messages it dropped.
func fitContext(msgs []chatMessage, keep, maxTokens, context int, render func([]chatMessage) ([]int, error)) ([]int, int, error) {
	room := context - max(maxTokens, 1)
	for dropped := 0; ; dropped += 2 {
		cur := append(append([]chatMessage(nil), msgs[:keep]...), msgs[keep+dropped:]...)
		ids, err := render(cur)
		if err != nil {
			return nil, 0, err
		}
		if len(ids) <= room {
			return ids, dropped, nil
		}
		if len(cur)-keep <= 1 {
			return nil, 0, fmt.Errorf("the message is %d tokens with the template, and the context holds %d with %d for the reply (fix: a shorter message, or a smaller --max-tokens)", len(ids), context, maxTokens)
		}
	}
}
