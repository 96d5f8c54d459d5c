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
	if got := MIME(42); got["text/plain"] != "42" || len(got) != 1 {
		t.Fatalf("int bundle = %v", got)
	}
	if got := MIME("42"); got["text/plain"] != `"42"` {
		t.Fatalf("string bundle = %v", got)
	}
}

func TestTensorHTMLEveryRank(t *testing.T) {
	for _, c := range []struct {
		x             *emily.Tensor
		tables, cells int
		labels        []string
	}{
		{emily.Scalar(3), 1, 1, nil},
		{emily.Arange(4), 1, 4, nil},
		{emily.Arange(24).Reshape(2, 3, 4), 2, 24, []string{"[0, :, :]", "[1, :, :]"}},
		{emily.Arange(16).Reshape(2, 2, 2, 2), 4, 16, []string{"[0, 0, :, :]", "[1, 1, :, :]"}},
		{emily.FromSlice([]bool{true, false}), 1, 2, nil},
	} {
		h := MIME(c.x)["text/html"].(string)
		if strings.Count(h, "<table") != c.tables || strings.Count(h, "<td") != c.cells || strings.Contains(h, "<pre>") {
			t.Errorf("%v: %d tables, %d cells: %s", c.x.Shape(), strings.Count(h, "<table"), strings.Count(h, "<td"), h)
		}
		if !strings.Contains(h, c.x.DType().String()) || !strings.Contains(h, c.x.Device()) {
			t.Errorf("%v: header lacks dtype or device: %s", c.x.Shape(), h)
		}
		for _, l := range c.labels {
			if !strings.Contains(h, "<code>"+l+"</code>") {
				t.Errorf("%v: no label %s: %s", c.x.Shape(), l, h)
			}
		}
	}
	// Past htmlMaxCells: the text preview.
	if h := MIME(emily.Arange(1000))["text/html"].(string); !strings.Contains(h, "<pre>") || !strings.Contains(h, "shape [1000]") {
		t.Errorf("large tensor: %s", h)
	}
}
