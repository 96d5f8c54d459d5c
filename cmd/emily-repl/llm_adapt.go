package main

// The seams between the commands and models/llama, models/llama/bpe and
// models/llama/chat, kept in one place while those packages grow.

import (
	"sync"

	"github.com/emily-go/emily/models/llama"
	"github.com/emily-go/emily/models/llama/bpe"
	"github.com/emily-go/emily/models/llama/chat"
	"github.com/emily-go/emily/models/sample"
)

type chatMessage = chat.Message

func tokenizerOf(m *llama.Model) (*bpe.Tokenizer, error) { return bpe.FromGGUF(m.Metadata()) }

func generateOptions(g *genFlags, s sample.Settings, lane llama.Lane) llama.Options {
	return llama.Options{MaxTokens: g.maxTokens, Lane: lane}
}

var templates sync.Map // *llama.Model → *chat.Template

// renderChat renders msgs with the model's chat template (and the
// assistant's turn opened) and tokenizes the prompt as Hugging Face's
// apply_chat_template(tokenize=True) does: control tokens read as
// themselves, no BOS added (the template writes one where it wants it).
func renderChat(m *llama.Model, tok *bpe.Tokenizer, msgs []chatMessage) ([]int, error) {
	t, ok := templates.Load(m)
	if !ok {
		tmpl, err := chat.FromGGUF(m.Metadata())
		if err != nil {
			return nil, err
		}
		t, _ = templates.LoadOrStore(m, tmpl)
	}
	text, err := t.(*chat.Template).Render(msgs, true)
	if err != nil {
		return nil, err
	}
	return tok.Encode(text, false, true), nil
}
