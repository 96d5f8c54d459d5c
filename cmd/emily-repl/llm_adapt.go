package main

import (
	"context"
	"fmt"

	"github.com/emily-go/emily/models/llama"
	"github.com/emily-go/emily/models/llama/bpe"
	"github.com/emily-go/emily/models/llama/chat"
	"github.com/emily-go/emily/models/sample"
)

type chatMessage = chat.Message

// generate runs one generation through m, streaming into s. A panic in
// the model is returned as an error: the chat goes on, and generate
// prints a message, not a Go stack.
func generate(ctx context.Context, m *llama.Model, prompt []int, g *genFlags, st sample.Settings, lane llama.Lane, s *streamer) (res llama.Result, err error) {
	o := llama.Options{MaxTokens: g.maxTokens, Sampling: st, Stop: g.stops, Lane: lane}
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
