package display

import (
	"fmt"
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

// TestNilAndZeroValues: every exported type of emily and display, nil or
// zero, alone or inside a container, shows as fmt prints it, and MIME
// never panics (a nil tensor's Show killed the session).
func TestNilAndZeroValues(t *testing.T) {
	var (
		nilTensor  *emily.Tensor
		nilObject  *Object
		nilHandle  *Handle
		nilJitted  *emily.Jitted
		nilStream  *emily.Stream
		nilScope   *emily.Scope
		nilError   *emily.Error
		nilOption  emily.Option
		nilDisplay Displayer
	)
	values := map[string]any{
		"nil *Tensor": nilTensor, "new(Tensor)": new(emily.Tensor), "Tensor{}": emily.Tensor{},
		"nil *Object": nilObject, "new(Object)": new(Object), "nil *Handle": nilHandle, "new(Handle)": new(Handle),
		"nil *Jitted": nilJitted, "new(Jitted)": new(emily.Jitted), "nil *Stream": nilStream, "new(Stream)": new(emily.Stream),
		"nil *Scope": nilScope, "new(Scope)": new(emily.Scope), "nil *Error": nilError, "new(Error)": new(emily.Error),
		"Range{}": emily.Range{}, "nil Option": nilOption, "DType(0)": emily.DType(0), "nil Displayer": nilDisplay,
		"MemoryStats{}": emily.MemoryStats{}, "ProgramInfo{}": emily.ProgramInfo{},
	}
	for name, v := range values {
		type holder struct{ F any }
		for cname, c := range map[string]any{
			"alone": v, "slice": []any{v, v}, "map": map[string]any{"k": v}, "struct": holder{v}, "pointer": &holder{v},
		} {
			t.Run(name+"/"+cname, func(t *testing.T) {
				want := fmt.Sprintf("%v", c)
				if got := Text(c); got != want && cname != "alone" {
					t.Errorf("Text = %q, fmt prints %q", got, want)
				}
				b := MIME(c) // must not panic
				if b["text/plain"] != Text(c) {
					t.Errorf("MIME text/plain = %q, Text = %q", b["text/plain"], Text(c))
				}
			})
		}
	}
	if got := Text(nilTensor); got != fmt.Sprint(nilTensor) {
		t.Errorf("nil tensor: Text = %q, fmt prints %q", got, fmt.Sprint(nilTensor))
	}
	if b := MIME(nilTensor); b["text/html"] != nil {
		t.Errorf("nil tensor has HTML: %v", b)
	}
	if got, want := Text(new(emily.Tensor)), fmt.Sprint(new(emily.Tensor)); got != want {
		t.Errorf("zero tensor: Text = %q, fmt prints %q", got, want)
	}
}

type panicky struct{}

func (panicky) MIMEBundle() map[string]any { panic("boom") }

// TestRenderReportsAPanic: a MIMEBundle that panics is Render's error, and
// MIME falls back to the text.
func TestRenderReportsAPanic(t *testing.T) {
	if _, err := Render(panicky{}); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("Render error = %v, want the panic", err)
	}
	if b := MIME(panicky{}); b["text/plain"] != "{}" {
		t.Fatalf("MIME = %v", b)
	}
}
