package display

import (
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

func TestMIME(t *testing.T) {
	b := MIME(emily.Arange(6).Reshape(2, 3))
	if b["text/plain"] != "Tensor int32[2 3]\n[[0 1 2]\n [3 4 5]]" {
		t.Fatalf("text/plain = %q", b["text/plain"])
	}
	h := b["text/html"].(string)
	if !strings.Contains(h, "<code>Tensor int32[2 3]</code>") || strings.Count(h, "<tr>") != 2 || strings.Count(h, "<td") != 6 {
		t.Fatalf("text/html = %s", h)
	}
	big := MIME(emily.Arange(24).Reshape(2, 3, 4))["text/html"].(string)
	if !strings.Contains(big, "<pre>") {
		t.Fatalf("3-D tensor html = %s", big)
	}
	if got := MIME(42); got["text/plain"] != "42" || len(got) != 1 {
		t.Fatalf("int bundle = %v", got)
	}
}
