package chat_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	emily "github.com/emily-go/emily"
	"github.com/emily-go/emily/models/llama/chat"
)

// fixture is testdata/smollm2_chat.json, rendered by Hugging Face
// transformers' render_jinja_template (scripts/chat-fixture.py).
type fixture struct {
	SpecialTokens map[string]string `json:"special_tokens"`
	Templates     map[string]string `json:"templates"`
	Cases         []struct {
		Template     string `json:"template"`
		Conversation string `json:"conversation"`
		AddGen       bool   `json:"add_generation_prompt"`
		Messages     []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Text string `json:"text"`
	} `json:"cases"`
}

func load(t *testing.T) fixture {
	t.Helper()
	b, err := os.ReadFile("testdata/smollm2_chat.json")
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// check renders every case of the named template with tmpl.
func check(t *testing.T, f fixture, name string, tmpl *chat.Template) {
	t.Helper()
	n := 0
	for _, c := range f.Cases {
		if c.Template != name {
			continue
		}
		n++
		msgs := make([]chat.Message, len(c.Messages))
		for i, m := range c.Messages {
			msgs[i] = chat.Message{Role: m.Role, Content: m.Content}
		}
		got, err := tmpl.Render(msgs, c.AddGen)
		if err != nil {
			t.Errorf("%s / %s / gen=%v: %v", name, c.Conversation, c.AddGen, err)
			continue
		}
		if got != c.Text {
			t.Errorf("%s / %s / gen=%v:\n got %q\nwant %q", name, c.Conversation, c.AddGen, got, c.Text)
		}
	}
	if n < 12 {
		t.Fatalf("template %s: %d cases in the fixture, want 12", name, n)
	}
}

// ChatML and a template using the constructs of other models' templates
// (namespace, macros, loop variables, filters, tests, slicing, trimming
// of block lines), both rendered as Hugging Face renders them: no model
// needed.
func TestTemplatesMatchHuggingFace(t *testing.T) {
	f := load(t)
	check(t, f, "chatml", chat.ChatML())
	if chat.ChatML().Source() != f.Templates["chatml"] {
		t.Errorf("chat.ChatMLSource differs from the fixture's ChatML")
	}
	vars := map[string]any{}
	for k, v := range f.SpecialTokens {
		vars[k] = v
	}
	feat, err := chat.New(f.Templates["features"], vars)
	if err != nil {
		t.Fatal(err)
	}
	check(t, f, "features", feat)
	_, err = feat.Render([]chat.Message{{Role: "tool", Content: "x"}}, true)
	if err == nil || !strings.Contains(err.Error(), "unknown role tool") {
		t.Errorf("raise_exception: err = %v, want the template's message", err)
	}
}

func llm(t *testing.T) string {
	t.Helper()
	p := os.Getenv("EMILY_LLM")
	if p == "" {
		p = filepath.Join("..", "..", "..", ".deps", "llm.gguf")
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no GGUF model at %s (run `make llm`, or set EMILY_LLM)", p)
	}
	return p
}

// The GGUF's own template (SmolLM2's, with its default system prompt) on
// the test conversations: system+user, user only, multi-turn with the
// assistant, add_generation_prompt true and false.
func TestGGUFTemplateMatchesHuggingFace(t *testing.T) {
	_, meta := emily.LoadGGUF(llm(t))
	tmpl, err := chat.FromGGUF(meta)
	if err != nil {
		t.Fatal(err)
	}
	check(t, load(t), "gguf", tmpl)
}

func TestNoTemplate(t *testing.T) {
	meta := map[string]any{"tokenizer.ggml.tokens": []string{"a"}}
	_, err := chat.FromGGUF(meta)
	if !errors.Is(err, chat.ErrNoTemplate) || !strings.Contains(err.Error(), "chat.ChatML()") {
		t.Errorf("err = %v, want ErrNoTemplate naming the ChatML fallback", err)
	}
	meta["tokenizer.chat_template"] = "{{ bos_token }}{{ messages[0].content }}"
	meta["tokenizer.ggml.bos_token_id"] = uint32(7)
	if _, err := chat.FromGGUF(meta); err == nil || !strings.Contains(err.Error(), "bos_token_id = 7 is outside") {
		t.Errorf("bad bos id: err = %v", err)
	}
	meta["tokenizer.ggml.bos_token_id"] = uint32(0)
	tmpl, err := chat.FromGGUF(meta)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tmpl.Render([]chat.Message{{"user", "hi"}}, false); err != nil || got != "ahi" {
		t.Errorf("Render = %q, %v; want \"ahi\"", got, err)
	}
	if _, err := chat.New("{% if %}", nil); err == nil {
		t.Errorf("a broken template compiled")
	}
}
