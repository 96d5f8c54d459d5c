// Package chat renders a conversation into the prompt text a chat model
// was trained on, with the Jinja chat template its GGUF embeds
// (tokenizer.chat_template), as Hugging Face's apply_chat_template does:
// trim_blocks and lstrip_blocks on, raise_exception, tojson and
// strftime_now available, the special tokens (bos_token, eos_token,
// unk_token, pad_token) defined.
//
// The Jinja engine is github.com/ardanlabs/jinja: pure Go, no
// dependencies, written for exactly this (it compiles the templates of
// Llama 3, Qwen 3, Gemma, Mistral, gpt-oss… in its own tests) and it
// applies HF's trim_blocks/lstrip_blocks by default, with HF's globals
// (raise_exception, strftime_now). nikolalohinski/gonja/v2, the other
// maintained candidate, is a general Jinja port: those settings and
// globals would be ours to configure and write.
// testdata/smollm2_chat.json, made by scripts/chat-fixture.py with
// transformers' own renderer, is the check.
//
// A GGUF without a template is an error (ErrNoTemplate), not a silent
// guess: a base model prompted with the wrong turn markers answers
// nonsense. ChatML is there to be asked for by name.
package chat

import (
	"errors"
	"fmt"

	"github.com/ardanlabs/jinja"

	"github.com/emily-go/emily/models/llama/internal/ggufmeta"
)

// Message is one turn of a conversation.
type Message struct {
	Role    string // "system", "user", "assistant" (or what the template knows)
	Content string
}

// Template is a compiled chat template. It is safe for concurrent use.
type Template struct {
	src  string
	name string
	tmpl *jinja.Template
	// vars are defined in every rendering: the special tokens.
	vars map[string]any
}

// ErrNoTemplate is returned by FromGGUF for a GGUF without
// tokenizer.chat_template (a base model, or one converted without it).
var ErrNoTemplate = errors.New("the GGUF has no tokenizer.chat_template")

// ChatMLSource is the ChatML template (<|im_start|>role\n…<|im_end|>\n),
// as Hugging Face's transformers had it as its default.
const ChatMLSource = `{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}`

// FromGGUF compiles the chat template of a GGUF's metadata (as
// emily.LoadGGUF returns it), with the special tokens the metadata names.
// A GGUF without one gives an error wrapping ErrNoTemplate; ChatML() is
// the explicit fallback.
func FromGGUF(meta map[string]any) (*Template, error) {
	const op = "chat.FromGGUF"
	src, ok := meta["tokenizer.chat_template"].(string)
	if !ok || src == "" {
		return nil, fmt.Errorf("%s: %w: give the prompt as text, or use chat.ChatML() if the model was trained on ChatML", op, ErrNoTemplate)
	}
	vars := map[string]any{}
	tokens, _ := meta["tokenizer.ggml.tokens"].([]string)
	for _, k := range []struct{ key, name string }{
		{"tokenizer.ggml.bos_token_id", "bos_token"},
		{"tokenizer.ggml.eos_token_id", "eos_token"},
		{"tokenizer.ggml.unknown_token_id", "unk_token"},
		{"tokenizer.ggml.padding_token_id", "pad_token"},
	} {
		v, ok := meta[k.key]
		if !ok {
			continue
		}
		id, err := ggufmeta.Int(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", op, k.key, err)
		}
		if id < 0 || id >= len(tokens) {
			return nil, fmt.Errorf("%s: %s = %d is outside the vocabulary (%d tokens)", op, k.key, id, len(tokens))
		}
		vars[k.name] = tokens[id]
	}
	t, err := New(src, vars)
	if err != nil {
		return nil, fmt.Errorf("%s: tokenizer.chat_template: %v", op, err)
	}
	t.name = "tokenizer.chat_template"
	return t, nil
}

// New compiles a Jinja chat template; vars (bos_token, eos_token, …) are
// defined in every rendering.
func New(src string, vars map[string]any) (*Template, error) {
	tmpl, err := jinja.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("chat.New: %v", err)
	}
	v := make(map[string]any, len(vars))
	for k, x := range vars {
		v[k] = x
	}
	return &Template{src: src, name: "template", tmpl: tmpl, vars: v}, nil
}

// ChatML is the ChatML template, for a model that was trained on it but
// whose GGUF has no template.
func ChatML() *Template {
	t, err := New(ChatMLSource, nil)
	if err != nil {
		panic(err) // a constant that compiles: checked by the tests
	}
	t.name = "ChatML"
	return t
}

// Source is the template's Jinja text.
func (t *Template) Source() string { return t.src }

// Render formats msgs; addGenerationPrompt ends the text with the opening
// of the assistant's turn, for the model to continue.
func (t *Template) Render(msgs []Message, addGenerationPrompt bool) (string, error) {
	return t.RenderWith(msgs, addGenerationPrompt, nil)
}

// RenderWith is Render with more variables (tools, documents, a date…:
// whatever the template reads); they override the special tokens.
func (t *Template) RenderWith(msgs []Message, addGenerationPrompt bool, extra map[string]any) (string, error) {
	ms := make([]any, len(msgs))
	for i, m := range msgs {
		ms[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	data := make(map[string]any, len(t.vars)+len(extra)+2)
	for k, v := range t.vars {
		data[k] = v
	}
	for k, v := range extra {
		data[k] = v
	}
	data["messages"] = ms
	data["add_generation_prompt"] = addGenerationPrompt
	out, err := t.tmpl.Render(data)
	if err != nil {
		return "", fmt.Errorf("chat.Render (%s, %d messages): %v", t.name, len(msgs), err)
	}
	return out, nil
}
