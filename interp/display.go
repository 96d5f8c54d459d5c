package interp

import (
	"strings"

	"github.com/emily-go/emily/display"
)

// makeResult renders the values of a cell's final expression: a tensor as
// its preview, anything else with fmt's %v (yaegi hands values of
// interpreted types with a String or Error method to Show as fmt.Stringer
// or error, so those methods are used), and the MIME bundle a notebook
// shows. Rendering happens here, inside the cell, so that a value whose
// own MIMEBundle panics is the cell's error; display never panics on the
// session's or emily's values (nil and zero ones included).
func makeResult(vs []any) (Result, error) {
	if len(vs) == 0 {
		return Result{}, nil
	}
	if len(vs) == 1 && vs[0] == nil {
		// A nil error (or any nil interface) shows nothing, as IPython
		// shows nothing for None: `f()` returning a nil error is a success.
		return Result{}, nil
	}
	texts := make([]string, len(vs))
	for i, v := range vs {
		texts[i] = display.Text(v)
	}
	r := Result{Shown: true, Text: strings.Join(texts, "\n")}
	if len(vs) > 1 {
		r.Value = vs
		r.MIME = map[string]any{"text/plain": r.Text}
		return r, nil
	}
	r.Value = vs[0]
	b, err := display.Render(vs[0])
	if err != nil {
		return Result{}, &Error{Name: PanicError, Msg: "panic while showing the cell's value: " + err.Error(), Err: err}
	}
	r.MIME = b
	return r, nil
}
