package main

// The seams between the commands and models/llama, models/llama/bpe and
// models/llama/chat, kept in one place while those packages grow.

import (
	"errors"

	"github.com/emily-go/emily/models/llama"
	"github.com/emily-go/emily/models/llama/bpe"
	"github.com/emily-go/emily/models/sample"
)

type chatMessage struct{ Role, Content string }

func tokenizerOf(m *llama.Model) (*bpe.Tokenizer, error) { return bpe.FromGGUF(m.Metadata()) }

func generateOptions(g *genFlags, s sample.Settings, lane llama.Lane) llama.Options {
	return llama.Options{MaxTokens: g.maxTokens, Lane: lane}
}

func renderChat(m *llama.Model, tok *bpe.Tokenizer, msgs []chatMessage) ([]int, error) {
	return nil, errors.New("the chat template is not merged yet")
}
