// Package display renders values for people: the text a terminal shows and
// the MIME bundle (text/plain, text/html) a notebook shows.
package display

import (
	"fmt"
	"html"
	"strings"

	"github.com/emily-go/emily"
)

// Bundle is a Jupyter MIME bundle: MIME type to data.
type Bundle = map[string]any

// Text renders v for a terminal: a tensor as its preview, anything else as
// fmt's %v.
func Text(v any) string {
	switch x := v.(type) {
	case *emily.Tensor:
		return x.String()
	case fmt.Stringer, error:
	case Displayer:
		// An interpreted type reaches here wrapped, and fmt would print the
		// wrapper; its bundle's text is what it chose to show.
		if s, ok := x.MIMEBundle()["text/plain"].(string); ok {
			return s
		}
	}
	return fmt.Sprintf("%v", v)
}

// MIME renders v for a notebook. Tensors get an HTML table (2-D and
// smaller, up to htmlMaxCells values) or a preformatted preview, with the
// text/plain preview always present for consoles.
// A Displayer chooses its own bundle.
func MIME(v any) Bundle {
	if d, ok := v.(Displayer); ok && d != nil {
		b := Bundle{}
		for k, x := range d.MIMEBundle() {
			b[k] = x
		}
		if _, ok := b["text/plain"]; !ok {
			b["text/plain"] = Text(v)
		}
		return b
	}
	b := Bundle{"text/plain": Text(v)}
	if t, ok := v.(*emily.Tensor); ok {
		b["text/html"] = tensorHTML(t, b["text/plain"].(string))
	}
	return b
}

const htmlMaxCells = 400

func tensorHTML(t *emily.Tensor, preview string) string {
	var b strings.Builder
	header, body, _ := strings.Cut(preview, "\n")
	fmt.Fprintf(&b, "<div class=\"emily-tensor\"><code>%s</code>", html.EscapeString(header))
	if t.IsSymbolic() || t.Rank() > 2 || t.Size() > htmlMaxCells || t.Rank() == 0 {
		fmt.Fprintf(&b, "<pre>%s</pre></div>", html.EscapeString(body))
		return b.String()
	}
	cells := strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(body))
	cols := 1
	if t.Rank() >= 1 {
		cols = t.Shape()[t.Rank()-1]
	}
	if cols == 0 || len(cells) != t.Size() {
		fmt.Fprintf(&b, "<pre>%s</pre></div>", html.EscapeString(body))
		return b.String()
	}
	b.WriteString("<table style=\"font-family:monospace\">")
	for r := 0; r < len(cells)/cols; r++ {
		b.WriteString("<tr>")
		for c := 0; c < cols; c++ {
			fmt.Fprintf(&b, "<td style=\"text-align:right\">%s</td>", html.EscapeString(cells[r*cols+c]))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table></div>")
	return b.String()
}
