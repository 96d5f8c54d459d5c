package kernel

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCompleteUTF8(t *testing.T) {
	euro := []byte("€") // three bytes
	tests := []struct {
		name string
		in   []byte
		want int
	}{
		{"empty", nil, 0},
		{"ascii", []byte("abc"), 3},
		{"whole rune", append([]byte("a"), euro...), 4},
		{"one byte of three", append([]byte("a"), euro[0]), 1},
		{"two bytes of three", append([]byte("a"), euro[:2]...), 1},
		{"invalid byte passes", []byte{'a', 0xff}, 2},
		{"stray continuation passes", []byte{'a', 0x80}, 2},
	}
	for _, tt := range tests {
		if got := completeUTF8(tt.in); got != tt.want {
			t.Errorf("%s: completeUTF8(%q) = %d, want %d", tt.name, tt.in, got, tt.want)
		}
	}
}

// One large Write is published as stream messages of at most 64 KiB, each
// whole UTF-8, in order.
func TestLargeWriteIsChunked(t *testing.T) {
	ci, _ := startKernel(t, "secret", floodExec{})
	c := connect(t, ci)
	const total = 8 << 20
	id := c.send(c.shell, "execute_request", execute(fmt.Sprintf("one %d", total)))
	msgs, ok := c.published.wait(id, 6*waitFor, func(ms []*message) bool {
		return len(ms) > 0 && isStatus(ms[len(ms)-1], "idle")
	})
	if !ok {
		t.Fatalf("no idle status; %d messages", len(msgs))
	}
	got, streams := 0, 0
	for _, m := range msgs {
		if m.Header.MsgType != "stream" {
			continue
		}
		text := content(t, m)["text"].(string)
		if len(text) > 64<<10 {
			t.Fatalf("a stream message of %d bytes; at most 64 KiB", len(text))
		}
		if strings.ContainsRune(text, utf8.RuneError) || strings.Trim(text, "é") != "" {
			t.Fatalf("a stream message that is not whole runes: %q…", text[:16])
		}
		got += len(text)
		streams++
	}
	mustEqual(t, "bytes", got, total)
	if streams < total/(64<<10) {
		t.Errorf("%d messages for %d bytes", streams, total)
	}
}
