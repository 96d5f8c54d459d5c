package llamaserve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emily-go/emily/models/llama"
	"github.com/emily-go/emily/serving"
	"github.com/emily-go/emily/serving/llamaserve"
)

type completion struct {
	Choices []struct {
		Text         string `json:"text"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// complete posts a greedy completion (echo on, so the answer names its
// prompt), streamed or not, and returns its text and usage.
func complete(ctx context.Context, url, prompt string, maxTokens int, stream bool) (text string, usage [2]int, err error) {
	body := fmt.Sprintf(`{"model": "smol", "prompt": %q, "max_tokens": %d, "temperature": 0, "echo": true, "stream": %v%s}`,
		prompt, maxTokens, stream, map[bool]string{true: `, "stream_options": {"include_usage": true}`}[stream])
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", usage, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		msg, _ := io.ReadAll(resp.Body)
		return "", usage, fmt.Errorf("status %d: %s", resp.StatusCode, msg)
	}
	if !stream {
		var c completion
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
			return "", usage, err
		}
		return c.Choices[0].Text, [2]int{c.Usage.PromptTokens, c.Usage.CompletionTokens}, nil
	}
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	done := false
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			done = true
			break
		}
		var c completion
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			return "", usage, err
		}
		for _, ch := range c.Choices {
			b.WriteString(ch.Text)
		}
		if c.Usage.PromptTokens > 0 {
			usage = [2]int{c.Usage.PromptTokens, c.Usage.CompletionTokens}
		}
	}
	if !done {
		return "", usage, fmt.Errorf("the stream ended without [DONE]: %v", sc.Err())
	}
	return b.String(), usage, nil
}

// TestLoopback32ConcurrentGreedy: 32 clients at once (half streaming)
// against the server over HTTP on SmolLM2, continuous batching: every
// answer is there, is the answer its prompt gets alone, and is its own
// (echo: the answer starts with its prompt; its usage is its prompt's);
// then a streaming client that disconnects frees its slot within a step
// or so, and the server goes on.
func TestLoopback32ConcurrentGreedy(t *testing.T) {
	path := llama.DefaultPath()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s missing (make llm): %v", path, err)
	}
	m, err := llama.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := llamaserve.NewBatched(m, llama.BatchOptions{MaxBatch: 32, PrefixCacheBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	s, err := serving.NewServer(serving.Options{Generator: g, Model: "smol"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	if err := g.Register(s.Metrics().Registry); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()

	const n, maxTokens = 32, 5
	subjects := []string{"cats", "the sea", "Paris", "music", "rain", "trains", "bread", "winter"}
	prompts := make([]string, n)
	for i := range prompts {
		// Two clients a prompt, one streaming and one not: 16 prompts to
		// run alone (the time of this test is mostly those, on 2 cores).
		prompts[i] = fmt.Sprintf("Fact %d about %s:", i/2+1, subjects[i/2%len(subjects)])
	}
	texts := make([]string, n)
	usages := make([][2]int, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Go(func() {
			texts[i], usages[i], errs[i] = complete(context.Background(), hs.URL, prompts[i], maxTokens, i%2 == 1)
		})
	}
	wg.Wait()
	t.Logf("%d clients together: %v", n, time.Since(start))
	start = time.Now()
	defer func() { t.Logf("the rest: %v", time.Since(start)) }()
	if st := g.Batcher().Stats(); st.Peak < n/2 {
		t.Errorf("at most %d requests decoded together: %+v", st.Peak, st)
	} else {
		t.Logf("batcher: %+v", st)
	}
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("client %d: %v", i, errs[i])
		}
	}
	for i := 0; i < n; i += 2 {
		// Alone: nothing else in the batch.
		alone, au, err := complete(context.Background(), hs.URL, prompts[i], maxTokens, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{i, i + 1} {
			if !strings.HasPrefix(texts[k], prompts[k]) || len(texts[k]) == len(prompts[k]) {
				t.Errorf("client %d got %q, which is not its prompt %q continued", k, texts[k], prompts[k])
			}
			if texts[k] != alone || usages[k] != au || usages[k][1] != maxTokens {
				t.Errorf("client %d (streaming %v): in the batch %q %v, alone %q %v", k, k%2 == 1, texts[k], usages[k], alone, au)
			}
		}
	}
	t.Logf("alone: %v", time.Since(start))
	// /metrics shows the batch and the prefix cache: the second client of
	// each prompt reused its twin's prompt, at least.
	resp, err := http.Get(hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"emily_batch_rows_peak 32\n", "emily_batch_rows 0\n", "emily_prefix_cache_hits_total "} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("/metrics has no %q", want)
		}
	}
	if st := g.Batcher().Prefix().Stats(); st.Hits < n/2 || st.Bytes > st.MaxBytes {
		t.Errorf("prefix cache: %+v", st)
	}
	// A disconnect frees its slot.
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", hs.URL+"/v1/completions",
		strings.NewReader(`{"model": "smol", "prompt": "Once upon a time", "max_tokens": 1000, "stream": true, "temperature": 0}`))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	for k := 0; k < 3 && sc.Scan(); {
		if strings.HasPrefix(sc.Text(), "data: ") {
			k++
		}
	}
	if st := g.Batcher().Stats(); st.Active != 1 {
		t.Errorf("streaming: %+v", st)
	}
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(10 * time.Second)
	for g.Batcher().Stats().Active != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the disconnected client's slot is still held: %+v", g.Batcher().Stats())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, u, err := complete(context.Background(), hs.URL, prompts[0], 2, false); err != nil || u[1] != 2 {
		t.Errorf("after the disconnect: %v %v", u, err)
	}
}
