// Package display renders values for people: the text a terminal shows and
// the MIME bundle (text/plain, text/html) a notebook shows.
package display

import (
	"fmt"
	"html"
	"reflect"
	"strconv"
	"strings"

	"github.com/emily-go/emily"
)

// Bundle is a Jupyter MIME bundle: MIME type to data.
type Bundle = map[string]any

// Text renders v for a terminal: a tensor as its preview, a string quoted
// in Go syntax, a value with a String method through it, anything else as
// fmt's %v. It never panics: nil and zero values, inside containers or
// not, print as fmt prints them (fmt reports a panicking String method in
// its text), and a panicking MIMEBundle falls back to fmt.
func Text(v any) (text string) {
	defer func() {
		if r := recover(); r != nil {
			text = fmt.Sprintf("%v", v)
		}
	}()
	switch x := v.(type) {
	case *emily.Tensor:
		// Through fmt, which turns a panic of String (a zero Tensor made
		// with new, say) into text, as fmt.Println(x) would print it.
		return fmt.Sprint(x)
	case string:
		// Quoted, as IPython shows a repr: "42" and 42 must look different.
		return strconv.Quote(x)
	case fmt.Stringer, error:
	case Displayer:
		// An interpreted type reaches here wrapped, and fmt would print the
		// wrapper; its bundle's text is what it chose to show.
		if isNil(x) {
			break
		}
		if s, ok := x.MIMEBundle()["text/plain"].(string); ok {
			return s
		}
	}
	return fmt.Sprintf("%v", v)
}

// isNil reports whether v is a nil pointer, map, slice, func, chan or
// interface held in an interface: calling its methods would panic.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}

// MIME renders v for a notebook. Tensors get an HTML table (2-D and
// smaller, up to htmlMaxCells values) or a preformatted preview, with the
// text/plain preview always present for consoles.
// A Displayer chooses its own bundle. MIME never panics: where Render
// fails, the bundle is the text alone.
func MIME(v any) Bundle {
	b, err := Render(v)
	if err != nil {
		return Bundle{"text/plain": Text(v)}
	}
	return b
}

// Render is MIME that reports a panic of the value's own rendering code
// (its MIMEBundle method) as an error, for a session to show as the
// cell's error. Values of emily's types never fail: a nil or zero tensor
// shows its text only.
func Render(v any) (b Bundle, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("displaying a %T: its MIMEBundle panicked: %v", v, r)
		}
	}()
	if d, ok := v.(Displayer); ok && !isNil(d) {
		b := Bundle{}
		for k, x := range d.MIMEBundle() {
			b[k] = x
		}
		if _, ok := b["text/plain"]; !ok {
			b["text/plain"] = Text(v)
		}
		return b, nil
	}
	b = Bundle{"text/plain": Text(v)}
	if t, ok := v.(*emily.Tensor); ok && t != nil {
		if h, ok := safeHTML(t, b["text/plain"].(string)); ok {
			b["text/html"] = h
		}
	}
	return b, nil
}

// safeHTML is tensorHTML, or false where the tensor cannot be read (a
// zero Tensor made with new(emily.Tensor), a freed one): the bundle then
// has its text, which says what fmt says.
func safeHTML(t *emily.Tensor, preview string) (h string, ok bool) {
	defer func() {
		if recover() != nil {
			h, ok = "", false
		}
	}()
	return tensorHTML(t, preview), true
}

const htmlMaxCells = 400

// tensorHTML renders a tensor for a notebook: a header with its shape,
// dtype and device, then its values as a table (a scalar as one cell, a
// vector as a row, a matrix as rows and columns; higher ranks as one
// labelled table per matrix, t[i, j, :, :]). Tensors over htmlMaxCells
// values show the elided text preview instead.
func tensorHTML(t *emily.Tensor, preview string) string {
	var b strings.Builder
	header, body, _ := strings.Cut(preview, "\n")
	fmt.Fprintf(&b, "<div class=\"emily-tensor\"><code>%s</code>", html.EscapeString(header))
	if !t.IsSymbolic() {
		fmt.Fprintf(&b, " <small>shape %v · %s · %s</small>", t.Shape(), t.DType(), t.Device())
	}
	if body == "" {
		body = header // a scalar's preview may be one line
	}
	var cells []string
	if !t.IsSymbolic() && t.Size() <= htmlMaxCells {
		cells = strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(body))
	}
	if len(cells) != t.Size() || t.Size() == 0 {
		fmt.Fprintf(&b, "<pre>%s</pre></div>", html.EscapeString(body))
		return b.String()
	}
	shape := t.Shape()
	rows, cols := 1, 1
	switch r := len(shape); {
	case r == 1:
		cols = shape[0]
	case r >= 2:
		rows, cols = shape[r-2], shape[r-1]
	}
	lead := shape[:max(len(shape)-2, 0)]
	for m := 0; m*rows*cols < len(cells); m++ {
		if len(lead) > 0 {
			fmt.Fprintf(&b, "<div><code>[%s:, :]</code></div>", leadIndex(lead, m))
		}
		b.WriteString("<table style=\"font-family:monospace\">")
		for r := 0; r < rows; r++ {
			b.WriteString("<tr>")
			for c := 0; c < cols; c++ {
				fmt.Fprintf(&b, "<td style=\"text-align:right\">%s</td>", html.EscapeString(cells[(m*rows+r)*cols+c]))
			}
			b.WriteString("</tr>")
		}
		b.WriteString("</table>")
	}
	b.WriteString("</div>")
	return b.String()
}

// leadIndex renders the m-th index over the leading axes, e.g. "1, 0, ".
func leadIndex(lead []int, m int) string {
	idx := make([]string, len(lead))
	for i := len(lead) - 1; i >= 0; i-- {
		idx[i] = fmt.Sprint(m % lead[i])
		m /= lead[i]
	}
	return strings.Join(idx, ", ") + ", "
}
