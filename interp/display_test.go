package interp

import (
	"strings"
	"testing"

	"github.com/emily-go/emily/display"
)

// sinkBuffer is a cell's stdout that records displays as a kernel's
// stream does.
type sinkBuffer struct {
	lockedBuffer
	displays []map[string]any
	ids      []string
	updates  []bool
}

func (b *sinkBuffer) Display(data, metadata map[string]any, id string, update bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.displays = append(b.displays, data)
	b.ids = append(b.ids, id)
	b.updates = append(b.updates, update)
}

func TestDisplayAPI(t *testing.T) {
	s, _ := newSession(t)
	if r := run(t, s, `import "github.com/emily-go/emily/display"`); r.err != nil {
		t.Fatal(r.err)
	}
	// In a terminal (a plain writer) each display falls back to text.
	r := run(t, s, `display.Show(display.HTML("<b>bold</b> &amp; more"), display.Markdown("# T"))`)
	if r.err != nil || r.stdout != "bold & more\n# T\n" {
		t.Fatalf("terminal fallback: %q %v", r.stdout, r.err)
	}
	var out sinkBuffer
	var errOut lockedBuffer
	code := `type card struct{ name string }
func (c card) MIMEBundle() map[string]any { return map[string]any{"text/html": "<i>" + c.name + "</i>"} }
fmt.Println("before")
h := display.Updatable(display.HTML("<p>0</p>"))
h.Update(display.HTML("<p>1</p>"))
display.Show(card{"ace"})
card{"king"}`
	res, err := s.Execute(t.Context(), code, &out, &errOut)
	if err != nil {
		t.Fatal(err, errOut.String())
	}
	if out.String() != "before\n" || len(out.displays) != 3 {
		t.Fatalf("stdout %q, displays %v", out.String(), out.displays)
	}
	if out.displays[0]["text/html"] != "<p>0</p>" || out.ids[0] == "" || out.updates[0] {
		t.Fatalf("first display %v id %q update %v", out.displays[0], out.ids[0], out.updates[0])
	}
	if out.displays[1]["text/html"] != "<p>1</p>" || out.ids[1] != out.ids[0] || !out.updates[1] {
		t.Fatalf("update %v id %q update %v", out.displays[1], out.ids[1], out.updates[1])
	}
	if out.displays[2]["text/html"] != "<i>ace</i>" {
		t.Fatalf("Displayer shown as %v", out.displays[2])
	}
	if b := display.MIME(res.Value); b["text/html"] != "<i>king</i>" {
		t.Fatalf("a Displayer as the cell's value renders as %v", b)
	}
}

func TestDisplayPlotInTerminal(t *testing.T) {
	s, _ := newSession(t)
	r := run(t, s, `import "github.com/emily-go/emily/plot"
plot.Line(emily.Arange(10))`)
	if r.err != nil || !strings.HasPrefix(r.res.Text, "640×480 plot saved to ") {
		t.Fatalf("%q %v", r.res.Text, r.err)
	}
}

func TestDisplayRules(t *testing.T) {
	s, _ := newSession(t)
	for _, c := range []struct{ cell, text string }{
		{`"42"`, `"42"`},
		{`42`, `42`},
		{"type celsius float64\nfunc (c celsius) String() string { return fmt.Sprintf(\"%.1f°C\", float64(c)) }\ncelsius(21.5)", "21.5°C"},
		{"func ok() error { return nil }\nok()", ""},
		{"emily.Memory().Active >= 0", "true"},
		// Session values in an interface slot (yaegi patches 112, 114):
		// shown with their String, not as yaegi's internal struct.
		{"type color int\n[]any{celsius(1), color(2), 3}", "[1.0°C 2 3]"},
		{`map[string]any{"t": celsius(4)}`, "map[t:4.0°C]"},
		{"var hot any = celsius(30)\nhot", "30.0°C"},
	} {
		r := run(t, s, c.cell)
		if r.err != nil || r.res.Text != c.text || r.res.Shown != (c.text != "") {
			t.Errorf("%s: shown %v %q, %v; want %q", c.cell, r.res.Shown, r.res.Text, r.err, c.text)
		}
	}
	r := run(t, s, "emily.Memory()")
	if !strings.HasPrefix(r.res.Text, "active ") || !strings.Contains(r.res.Text, "B, peak ") {
		t.Errorf("emily.Memory() shows %q", r.res.Text)
	}
}
